/**
 * A process that writes the trace journal until it is killed: `tsx journal-writer.ts <dir> <segmentBytes>`.
 * It appends ~10 events per millisecond tick and never calls flush() — writes happen on the journal's own
 * interval — and prints `flushed <seq>` each time more of them reached the file (stdout to a pipe is
 * synchronous on Linux, so a printed line means the write had completed before the kill).
 */
import { TraceJournal } from '../journal.ts';

const [dir, segmentBytes] = process.argv.slice(2);
if (!dir) throw new Error('usage: journal-writer.ts <dir> [segmentBytes]');
const journal = new TraceJournal({ dir, segmentBytes: Number(segmentBytes ?? 65536) });
const { lastSeq } = await journal.open();
process.stdout.write(`open ${lastSeq}\n`);

let seq = lastSeq;
let reported = lastSeq;
const tick = () => {
  for (let k = 0; k < 10; k++) {
    seq++;
    journal.append({
      seq,
      time: Date.now(),
      type: 'loop.iteration',
      source: 'sync',
      pods: seq % 7,
      durationMs: 0.25,
    });
  }
  if (journal.flushedSeq > reported) {
    reported = journal.flushedSeq;
    process.stdout.write(`flushed ${reported}\n`);
  }
  setTimeout(tick, 1);
};
tick();
