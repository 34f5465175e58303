/**
 * A process that boots a trace journal as the server does (open, then the newest events for the ring) and
 * prints what that cost in memory: `journal-boot.ts <dir> <tail>` prints `rss <before> <peak> <events>`,
 * the peak resident set (KiB) before open and after the boot reads, and how many events the tail held.
 */
import { TraceJournal } from '../journal.ts';

const [dir, tail] = process.argv.slice(2);
if (!dir) throw new Error('usage: journal-boot.ts <dir> <tail>');
const before = process.resourceUsage().maxRSS;
const journal = new TraceJournal({ dir, warn: (m) => process.stderr.write(`${m}\n`) });
await journal.open();
const events = await journal.tail(Number(tail ?? 1_000));
await journal.whenIndexed();
process.stdout.write(`rss ${before} ${process.resourceUsage().maxRSS} ${events.length}\n`);
await journal.close();
