/**
 * The import-log command's second output (`--raw-index FILE`): the log's unread entries as raw-line records
 * (core raw-record.ts, written by its rawRecordLine), one JSON array a line in the order of the trace they were
 * left out of: the file a server's import keeps as `raw.ndjson`, its offsets found the same way (each line's
 * start, imports/raw-file.ts LineStarts). The line starts are read in one pass over the input as it was read:
 * the file itself, or the copy of stdin or of a gzip or UTF-16 file the command read from (so inflated, UTF-8
 * bytes). Entries past that copy (stdin beyond the 256 MiB it keeps) have offsets -1: their line numbers only.
 * Memory: 8 bytes a line of the input, one block, and one block of output.
 *
 * RawIndexOut is the parser's sink for them: when the command's first pass over the file found where each line
 * starts (LogReader's `onLines`, before any entry), each record is written as its entry comes; otherwise (an input
 * read backwards, or read as it comes) the entries are kept (RawEntries) and written at the end (writeRawIndex).
 * The bytes are the same either way.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import {
  jsonBytes,
  RawEntries,
  type RawEntry,
  type RawEntrySink,
  RecordWriter,
  rawEntryOf,
} from '@syncscope/core/kubelet-log';
import { LineStarts } from './imports/raw-file.ts';

type RawFields = Parameters<RawEntrySink['entry']>[0];

const BLOCK = 1 << 20;
const NULL_JSON = jsonBytes(undefined);

/** Where each line of `source` starts, and its size. */
function lineStarts(source: string): { lines: LineStarts; size: number } {
  const lines = new LineStarts();
  const fd = openSync(source, 'r');
  let size = 0;
  try {
    const buf = Buffer.allocUnsafe(BLOCK);
    for (let got = readSync(fd, buf, 0, BLOCK, size); got > 0; got = readSync(fd, buf, 0, BLOCK, size)) {
      lines.scan(buf.subarray(0, got), size);
      size += got;
    }
  } finally {
    closeSync(fd);
  }
  return { lines, size };
}

/**
 * The records written to the file open as `fd`, each entry's offsets from `lines` (the input's `size` bytes):
 * each record's UTF-8 straight into one block (RecordWriter), each string's JSON made once.
 */
class RecordFile {
  private readonly w: RecordWriter;
  private readonly json = new Map<string, Uint8Array>();
  /** per field (node, level, source, pod, podUID) the last string and its JSON */
  private readonly lastValue: (string | undefined)[] = [];
  private readonly lastJson: Uint8Array[] = [];

  constructor(
    readonly fd: number,
    private readonly lines: LineStarts,
    private readonly size: number,
  ) {
    this.w = new RecordWriter((bytes) => writeSync(fd, bytes));
  }

  add(e: RawEntry): void {
    const start = this.lines.of(e.line);
    const next = this.lines.of(e.line + 1);
    this.w.record(
      e,
      this.jsonOf(0, e.node),
      this.jsonOf(1, e.level),
      this.jsonOf(2, e.source),
      this.jsonOf(3, e.pod),
      this.jsonOf(4, e.podUID),
      start,
      start < 0 ? -1 : next >= 0 ? next : this.size,
      e.text,
    );
  }

  /** writes what is left and closes the file */
  close(): void {
    try {
      this.w.end();
    } finally {
      closeSync(this.fd);
    }
  }

  /** field k's JSON (null for none) */
  private jsonOf(k: number, v: string | undefined): Uint8Array {
    if (v === undefined) return NULL_JSON;
    if (v === this.lastValue[k]) return this.lastJson[k] as Uint8Array;
    let j = this.json.get(v);
    if (j === undefined) {
      j = jsonBytes(v);
      this.json.set(v, j);
    }
    this.lastValue[k] = v;
    this.lastJson[k] = j;
    return j;
  }
}

/** Writes `entries` to `out` (replacing it), their offsets read from the bytes of `source`; how many. */
function writeRawIndex(entries: RawEntries, source: string | undefined, out: string): number {
  if (source === undefined) throw new Error('the input was not kept to read the offsets from');
  const { lines, size } = lineStarts(source);
  const file = new RecordFile(openSync(out, 'w'), lines, size);
  try {
    for (let i = 0; i < entries.size; i++) file.add(entries.at(i));
  } finally {
    file.close();
  }
  return entries.size;
}

/** The command's sink of unread entries for `--raw-index OUT` (see above). */
export class RawIndexOut implements RawEntrySink {
  private readonly kept = new RawEntries();
  private file: RecordFile | undefined;

  constructor(private readonly out: string) {}

  /** The lines of the file the entries will come from (its first pass): records are written as they come. */
  onLines(lines: LineStarts, size: number): void {
    if (this.file || this.kept.size > 0) return;
    let fd: number;
    try {
      fd = openSync(this.out, 'w');
    } catch {
      // kept, and written at the end, where the command reports what stops it
      return;
    }
    this.file = new RecordFile(fd, lines, size);
  }

  entry(f: RawFields): void {
    if (this.file) this.file.add(rawEntryOf(f));
    else this.kept.entry(f);
  }

  /** Every record written to OUT (`source`: the file the input was read from, for the entries kept). */
  end(source: string | undefined): void {
    if (this.file) this.file.close();
    else writeRawIndex(this.kept, source, this.out);
  }
}
