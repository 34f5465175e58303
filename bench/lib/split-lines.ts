/**
 * P6's floor: the least a line-by-line reader of a file can do in Node. Reads the file in 1 MiB blocks and
 * decodes them with the import-log command's own BlockDecoder, then splits the text into lines, counting them.
 * `node scripts/bundled.mjs split-lines FILE`.
 *
 * `split-lines --readline FILE` is the pass most Node programs write instead (node:readline over a read stream,
 * each line a string): shown beside the floor, for scale.
 *
 * `split-lines --emit FILE` is the floor plus the least of the import's output: every line, read as nothing,
 * written to stdout as one log.raw event's NDJSON (its text as JSON.stringify escapes it, its line number), on
 * one thread. It shows how much of the import's time its output alone takes, before any line is understood.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { BlockDecoder } from '@syncscope/server/log-blocks';

let lines = 0;
let chars = 0;

/** each line, when --emit: one log.raw event's NDJSON into `out`, flushed to stdout whenever it might not fit */
let emit: ((line: string) => void) | undefined;
const out = Buffer.allocUnsafe(4 << 20);
let used = 0;
let waiting: Promise<void> | undefined;
function emitLine(line: string): void {
  const s = `{"type":"log.raw","text":${JSON.stringify(line)},"level":"I","seq":${lines},"time":0,"node":"","origin":{"line":${lines}}}\n`;
  // UTF-8 takes at most 3 bytes a UTF-16 unit; a line longer than the buffer goes out alone
  if (used + s.length * 3 > out.length) flush();
  if (s.length * 3 > out.length) process.stdout.write(s);
  else used += out.write(s, used);
}
function flush(): void {
  if (used === 0) return;
  if (!process.stdout.write(Buffer.from(out.subarray(0, used))))
    waiting ??= new Promise((r) =>
      process.stdout.once('drain', () => {
        waiting = undefined;
        r();
      }),
    );
  used = 0;
}

async function blocks(path: string): Promise<void> {
  const fh = await open(path, 'r');
  const buf = Buffer.allocUnsafe(1 << 20);
  const dec = new BlockDecoder();
  let carry = '';
  /** the lines of a piece of text: the first one joined to what the piece before left unfinished */
  const split = (text: string): void => {
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      chars += (start === 0 ? carry.length : 0) + nl - start;
      lines++;
      emit?.(start === 0 ? carry + text.slice(0, nl) : text.slice(start, nl));
      start = nl + 1;
    }
    carry = start === 0 ? carry + text : text.slice(start);
  };
  for (;;) {
    const { bytesRead } = await fh.read(buf, 0, buf.length, null);
    if (bytesRead === 0) break;
    dec.feed(buf.subarray(0, bytesRead), split);
    if (waiting) await waiting;
  }
  split(dec.end());
  await fh.close();
}

async function readline(path: string): Promise<void> {
  const rl = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  for await (const line of rl) {
    lines++;
    chars += line.length;
  }
}

const args = process.argv.slice(2);
if (args[0] === '--readline') await readline(args[1] as string);
else if (args[0] === '--emit') {
  emit = emitLine;
  await blocks(args[1] as string);
  flush();
} else await blocks(args[0] as string);
process.stderr.write(`${lines} lines ${chars} chars\n`);
