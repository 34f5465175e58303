/**
 * The import-log command's second output (`--raw-index FILE`): the raw-line index of the log it read, one JSON
 * object a line, `{"node","first","last","start","end"}` (raw-index.ts), in line order. The byte offsets are
 * resolved in one pass over the input as it was read: the file itself, or the copy of stdin or of a gzip or
 * UTF-16 file the command read from (so inflated, UTF-8 bytes). Lines past that copy (stdin beyond the 256 MiB
 * it keeps) get line numbers only. Each range is written as soon as it has its offsets: no list of them is held.
 */
import { createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { OffsetResolver, type RawIndex, type RawRange } from '@syncscope/core/kubelet-log';

const BLOCK = 1 << 20;

/** One range as its line of the index file. */
function rangeLine(r: RawRange): string {
  const at =
    r.start === undefined ? '' : `,"start":${r.start}${r.end === undefined ? '' : `,"end":${r.end}`}`;
  return `{"node":${JSON.stringify(r.node)},"first":${r.first},"last":${r.last}${at}}\n`;
}

/**
 * Writes the index's ranges to `out` (replacing it), their offsets read from the bytes of `source` (the whole
 * input when `whole`, else its head; none when undefined), awaiting the file's back-pressure.
 */
export async function writeRawIndex(
  index: RawIndex,
  source: string | undefined,
  whole: boolean,
  out: string,
): Promise<void> {
  const w = createWriteStream(out);
  const failed = new Promise<never>((_, rej) => w.once('error', rej));
  failed.catch(() => undefined);
  let text = '';
  const flush = async () => {
    const t = text;
    text = '';
    if (t !== '' && !w.write(t))
      await Promise.race([new Promise<void>((res) => w.once('drain', () => res())), failed]);
  };
  const r = new OffsetResolver(index.ranges(), (range) => {
    text += rangeLine(range);
  });
  if (source !== undefined) {
    const fh = await open(source, 'r');
    try {
      const buf = Buffer.allocUnsafe(BLOCK);
      for (;;) {
        const { bytesRead } = await fh.read(buf, 0, BLOCK, null);
        if (bytesRead === 0) break;
        r.feed(buf.subarray(0, bytesRead));
        await flush();
      }
    } finally {
      await fh.close();
    }
  }
  r.end(source !== undefined && whole);
  await flush();
  await Promise.race([new Promise<void>((res) => w.end(() => res())), failed]);
}
