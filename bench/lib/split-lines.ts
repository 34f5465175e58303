/**
 * P6's floor: the least a line-by-line reader of a file can do in Node. Reads the file in 1 MiB blocks and
 * decodes them with the import-log command's own BlockDecoder, then splits the text into lines, counting them.
 * `node scripts/bundled.mjs split-lines FILE`.
 *
 * `split-lines --readline FILE` is the pass most Node programs write instead (node:readline over a read stream,
 * each line a string): shown beside the floor, for scale.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { BlockDecoder } from '@syncscope/server/log-blocks';

let lines = 0;
let chars = 0;

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
else await blocks(args[0] as string);
process.stdout.write(`${lines} lines ${chars} chars\n`);
