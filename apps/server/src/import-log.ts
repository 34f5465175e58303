/**
 * `pnpm -s import-log FILE [--year N] [--tz ZONE] [--raw-index OUT]` (FILE `-` reads stdin; either may be
 * gzip-compressed, as a rotated kubelet.log.1.gz is, and UTF-16 text with a byte-order mark, as Windows
 * PowerShell saves it, is read as well): a kubelet's log in, the trace out,
 * as NDJSON on stdout (time order, seq from 1), the same events the dashboard replays. A summary goes to stderr.
 * The trace holds trace events only: the lines no rule reads are counted, and `--raw-index OUT` writes them
 * as raw-line records (their place among the events, pod, byte offsets: ./import-log-raw-index.ts).
 * `--explain` prints the model beside the log instead of the trace (./import-log-explain.ts), raw lines in it.
 * Exit 0 when the input held any kubelet line, 1 when it held none ("no kubelet lines in N lines"), 2 on bad
 * arguments or an unreadable file.
 *
 * Streams: the file is read in 1 MiB blocks, first for the time of each line, then to parse it, and never whole;
 * when its lines fall into blocks out of time order (a log pasted in pieces, several masters' logs or rotated
 * files one after the other), a file up to 256 MiB is read block by block in the order that merges them by time
 * (blockOrder, LineFile). stdin is copied to a temporary file first (up to 256 MiB; the rest is read as it comes,
 * and the summary counts the events the reorder window could not place) and read as a file. stdout's
 * back-pressure is awaited. Newest-first input (`journalctl -r`) is detected from its first lines and read
 * backwards from the end. The NDJSON of a file of 1 MiB or more, or of stdin, is encoded on a
 * second thread (EncoderPipe) while this one parses: the same bytes, sooner on a machine with two cores.
 *
 * This file runs the command and writes the summary; the reading is ./import-log-read.ts (LogReader), the
 * arguments and the exit on an error ./import-log-cli.ts.
 */
import { stat } from 'node:fs/promises';
import { asUtf8, type ImportSummary, KubeletLogParser, type RawSink } from '@syncscope/core/kubelet-log';
import { maybeGunzip } from './gzip-input.ts';
import { fail, options, removeTemps } from './import-log-cli.ts';
import { ExplainOut } from './import-log-explain.ts';
import { NdjsonOut } from './import-log-out.ts';
import { EncoderPipe } from './import-log-pipe.ts';
import { RawIndexOut } from './import-log-raw-index.ts';
import { cut, LogReader, type Out } from './import-log-read.ts';

/** a file smaller than this is encoded on the main thread: starting the second one would cost more */
const SMALL_FILE = 1 << 20;

function describe(s: ImportSummary): string {
  const iso = (t: number | undefined) => (t === undefined ? '?' : new Date(t).toISOString());
  return [
    `${s.lines} lines read: ${s.understood} understood, ${s.other} skipped as other programs, ${s.raw} kept raw${rawWhere()}, ${s.blank} blank${s.tooLong ? `, ${s.tooLong} too long (skipped)` : ''}${s.failed ? `, ${s.failed} unreadable (passed over or kept raw)` : ''}`,
    `nodes: ${s.nodes.length ? s.nodes.join(', ') : 'none'}; pods: ${s.pods}; ${s.events} events`,
    `time: ${iso(s.firstTime)} .. ${iso(s.lastTime)}${s.reversed || reader.readBackwards ? ' (newest-first input, read backwards)' : ''}${reader.merged > 1 ? ` (pasted in ${reader.merged} blocks out of time order, merged by time)` : ''}${s.late ? `; ${s.late} events out of time order the reorder window could not place` : ''}`,
  ].join('\n');
}

/** where the summary says the raw lines are */
function rawWhere(): string {
  if (opts.explain) return '';
  return opts.rawIndex === undefined
    ? ' (not in the trace; --raw-index OUT lists them)'
    : ` (indexed in ${opts.rawIndex})`;
}

// the import keeps little alive (one reorder window, the pods seen) and makes much short-lived garbage: the
// server's heap goal (heap.ts; `pnpm -s import-log` starts with it) keeps the peak RSS bounded whatever the
// file size (P6: under 200 MB)

// a reader that stops early (`| head`) is not an error
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') {
    removeTemps();
    process.exit(0);
  }
  throw e;
});
const opts = options();
// the lines no rule reads go to the index, not the trace (--explain shows them beside the model); without
// --raw-index they are only counted, so memory stays bounded whatever the input's size
const rawEntries = opts.rawIndex === undefined ? undefined : new RawIndexOut(opts.rawIndex);
const reader = new LogReader(opts, rawEntries && ((lines, size) => rawEntries.onLines(lines, size)));
const small =
  opts.file !== '-' &&
  (await stat(opts.file).then(
    (st) => st.size < SMALL_FILE,
    () => true,
  ));
const out: Out = opts.explain
  ? new ExplainOut(process.stdout)
  : small
    ? new NdjsonOut(process.stdout)
    : new EncoderPipe(process.stdout);
const rawSink: RawSink | undefined = opts.explain || rawEntries ? undefined : { add: () => undefined };
const parser = new KubeletLogParser({
  onEvent: out.push,
  reversed: false,
  ...(rawSink ? { rawIndex: rawSink } : {}),
  ...(rawEntries ? { rawEntries } : {}),
  ...(opts.year !== undefined ? { year: opts.year } : {}),
  ...(opts.tz !== undefined ? { tz: opts.tz } : {}),
});
try {
  if (opts.file === '-')
    await reader.importStream(asUtf8(maybeGunzip(process.stdin, { onCut: () => cut('stdin') })), parser, out);
  else await reader.importFile(opts.file, parser, out);
} catch (e) {
  // a damaged gzip stream (zlib's words), or an input that failed while it was read
  fail(`cannot read ${opts.file === '-' ? 'stdin' : opts.file}: ${(e as Error).message}`);
}
const summary = parser.end();
await out.end();
if (rawEntries && opts.rawIndex !== undefined) {
  try {
    rawEntries.end(reader.source);
  } catch (e) {
    fail(`--raw-index ${opts.rawIndex}: ${(e as Error).message}`);
  }
}
removeTemps();
process.stderr.write(`${describe(summary)}\n`);
if (summary.understood + summary.raw === 0) fail(`no kubelet lines in ${summary.lines} lines`, 1);
