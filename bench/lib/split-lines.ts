/**
 * P6's floor: the least a line-by-line reader of a file can do in Node. Reads the file in 1 MiB blocks (as the
 * import-log command does), decodes UTF-8 and splits lines, counting them. `node scripts/bundled.mjs split-lines FILE`.
 */
import { open } from 'node:fs/promises';

const fh = await open(process.argv[2] as string, 'r');
const buf = Buffer.allocUnsafe(1 << 20);
const dec = new TextDecoder('utf-8');
let carry = '';
let lines = 0;
let chars = 0;
for (;;) {
  const { bytesRead } = await fh.read(buf, 0, buf.length, null);
  if (bytesRead === 0) break;
  const text = carry + dec.decode(buf.subarray(0, bytesRead), { stream: true });
  let start = 0;
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
    chars += nl - start;
    lines++;
    start = nl + 1;
  }
  carry = text.slice(start);
}
await fh.close();
process.stdout.write(`${lines} lines ${chars} chars\n`);
