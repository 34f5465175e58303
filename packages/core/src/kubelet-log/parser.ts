/**
 * KubeletLogParser: kubelet log text in, trace events out, pushed: `feed(chunk)` as the text arrives (a Node
 * stream, a File read in a Web Worker), `end()` when it is over. Browser-safe (no Node imports). It is the two
 * halves of the importer wired together: an EntryReader (lines to log entries) and an Interpreter (entries to
 * events).
 *
 * Events leave through `onEvent` in time order (a ReorderBuffer window), numbered from seq 1, each with its
 * `node`, `origin.line` and the kubelet's own time. Lines no family reads become ranges of `rawIndex` when it is
 * given (raw-index.ts: the trace then holds trace events only), else `log.raw` events; lines of other programs
 * and blank lines are only counted. `summary()` has the counts.
 *
 * Memory is bounded by one pending entry per node, the reorder window, the per-node register of pods and
 * containers, and `maxLineChars` per line, except for newest-first input (`journalctl -r`): it is detected from
 * the first lines and then every line is held until `end()` (at most `maxReversedChars`, else an error), because
 * nothing can be emitted before the oldest line arrives. Readers that can seek read such input backwards instead
 * (readLinesBackward) and call `feedLine` with the file's line numbers.
 */
import type { TraceEvent } from '../events/trace.ts';
import { Interpreter } from './interpreter.ts';
import type { RawEntrySink } from './raw-entries.ts';
import type { RawSink } from './raw-index.ts';
import { EntryReader, type ReaderOptions } from './reader.ts';

/**
 * the reader's options, where events go and how long they may wait to be put in time order, and where the
 * unread lines go (no log.raw events when given)
 */
export interface ParserOptions extends Omit<ReaderOptions, 'onEntry'> {
  onEvent(ev: TraceEvent): void;
  reorderWindowMs?: number;
  rawIndex?: RawSink;
  /** where unread entries go whole (raw-entries.ts), in trace order, instead of log.raw events */
  rawEntries?: RawEntrySink;
}

export interface ImportSummary {
  lines: number;
  /** lines (with their continuation lines) some family read, and the lines of glog's file headers and of
   * `==> kubelet <==` section headers */
  understood: number;
  /** lines of other programs */
  other: number;
  /** kubelet lines no family read (log.raw events, or the raw-line index's ranges) */
  raw: number;
  blank: number;
  /** lines over maxLineChars, skipped */
  tooLong: number;
  nodes: string[];
  pods: number;
  events: number;
  firstTime?: number;
  lastTime?: number;
  reversed: boolean;
  /** events whose stamp was older than one already emitted past the reorder window */
  late: number;
  /** a whole log pasted in blocks out of time order: how many blocks were merged (importKubeletLog) */
  blocks?: number;
  /** lines that broke the reader or a family (passed over, or kept raw), when there were any */
  failed?: number;
}

export class KubeletLogParser {
  private readonly reader: EntryReader;
  private readonly interp: Interpreter;

  constructor(o: ParserOptions) {
    const { onEvent, reorderWindowMs, rawIndex, rawEntries, ...rest } = o;
    const interp = new Interpreter(
      onEvent,
      (name) => this.reader.nodeNamed(name),
      reorderWindowMs,
      rawIndex,
      rawEntries,
    );
    this.interp = interp;
    this.reader = new EntryReader({ ...rest, onEntry: (e) => interp.entry(e) });
  }

  feed(chunk: string): void {
    this.reader.feed(chunk);
  }

  /** One line with its line number in the input as given (for readers that number lines themselves). */
  feedLine(text: string, lineNo: number): void {
    this.reader.feedLine(text, lineNo);
  }

  end(): ImportSummary {
    this.reader.end();
    this.interp.flush();
    return this.summary();
  }

  /**
   * Live input (a followed file, journalctl -f): lets out every event of the lines fed so far without ending the
   * input, so the last entry does not wait for the next line. Called by a follower once its input has been
   * quiet for a moment; a header-less line after it no longer continues the entry before it (it is kept raw).
   * Does nothing for newest-first input, which cannot be emitted before it ends.
   */
  flush(): void {
    if (this.reader.flush()) this.interp.flush();
  }

  summary(): ImportSummary {
    return summaryOf(this.reader, this.interp);
  }
}

/** The summary of an import whose two halves are `reader` and `interp`. */
function summaryOf(
  reader: Pick<EntryReader, 'lines' | 'counts' | 'nodeNames' | 'reversed'>,
  interp: Pick<Interpreter, 'counts' | 'podCount' | 'first' | 'last' | 'late'>,
): ImportSummary {
  const s: ImportSummary = {
    lines: reader.lines,
    understood: interp.counts.understood + reader.counts.header,
    other: reader.counts.other,
    raw: interp.counts.raw,
    blank: reader.counts.blank,
    tooLong: reader.counts.tooLong,
    events: interp.counts.events,
    nodes: reader.nodeNames,
    pods: interp.podCount,
    reversed: reader.reversed,
    late: interp.late,
  };
  const failed = reader.counts.failed + interp.counts.failed;
  if (failed > 0) s.failed = failed;
  if (interp.first !== undefined) s.firstTime = interp.first;
  if (interp.last !== undefined) s.lastTime = interp.last;
  return s;
}
