/**
 * Opens a data dir as a server's start does, in the order it does: `node --import tsx open-data-dir.ts
 * <dataDir>` takes the lock, loads the pod store and opens the trace journal, prints `started <pods>
 * <lastSeq>` and exits. Warnings go to stderr. For tests of damage that would make a start hang (a FIFO).
 */
import { join } from 'node:path';
import { TraceJournal } from '../journal.ts';
import { DataDirLock } from '../lock.ts';
import { PodStore } from '../pod-store.ts';

const [dir] = process.argv.slice(2);
if (!dir) throw new Error('usage: open-data-dir.ts <dataDir>');
const warn = (msg: string) => process.stderr.write(`${msg}\n`);
const lock = DataDirLock.acquire(dir, warn);
const pods = new PodStore(join(dir, 'store', 'pods'), { warn }).load();
const journal = new TraceJournal({ dir: join(dir, 'trace'), warn });
const { lastSeq } = await journal.open();
process.stdout.write(`started ${pods.length} ${lastSeq}\n`);
await journal.close();
lock.release();
