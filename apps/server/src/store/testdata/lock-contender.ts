/**
 * One contender for a data dir lock: `node --import tsx lock-contender.ts <dataDir>`. Prints `ready`, waits
 * for a line on stdin (so that several contenders try at the same moment), tries DataDirLock.acquire once and
 * prints `won` or `busy <owner pid>`; then holds what it got until stdin ends, releases it and exits.
 */
import { DataDirInUseError, DataDirLock } from '../lock.ts';

const [dir] = process.argv.slice(2);
if (!dir) throw new Error('usage: lock-contender.ts <dataDir>');
let lock: DataDirLock | undefined;
let went = false;
process.stdin.setEncoding('utf8');
process.stdin.on('data', () => {
  if (went) return;
  went = true;
  try {
    lock = DataDirLock.acquire(dir);
    process.stdout.write('won\n');
  } catch (err) {
    if (!(err instanceof DataDirInUseError)) throw err;
    process.stdout.write(`busy ${err.owner.pid}\n`);
  }
});
process.stdin.on('end', () => lock?.release());
process.stdout.write('ready\n');
