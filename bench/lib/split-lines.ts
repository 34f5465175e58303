/**
 * P6's floor: the least a line-by-line reader of a file can do in Node. Reads the file in 1 MiB blocks and
 * decodes them with the import-log command's own BlockDecoder, then splits the text into lines, counting them.
 * `node scripts/bundled.mjs split-lines FILE`.
 */
import { open } from 'node:fs/promises';
import { BlockDecoder } from '@syncscope/server/log-blocks';

const fh = await open(process.argv[2] as string, 'r');
const buf = Buffer.allocUnsafe(1 << 20);
const dec = new BlockDecoder();
let carry = '';
let lines = 0;
let chars = 0;
/** the lines of a piece of text: the first one joined to what the piece before left unfinished */
const split = (text: string): void => {
  let start = 0;
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
    chars += (start === 0 ? carry.length : 0) + nl - start;
    lines++;
    start = nl + 1;
  }
  carry = start === 0 ? carry + text : text.slice(start);
};
for (;;) {
  const { bytesRead } = await fh.read(buf, 0, buf.length, null);
  if (bytesRead === 0) break;
  dec.feed(buf.subarray(0, bytesRead), split);
}
split(dec.end());
await fh.close();
process.stdout.write(`${lines} lines ${chars} chars\n`);
