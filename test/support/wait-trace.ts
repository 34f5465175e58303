/**
 * The one way the suites wait on an engine in their own process: `pred` is checked now and again at every
 * event the trace records, so a test waits exactly as long as the engine takes and no longer. On timeout the
 * error names what was awaited and, when the trace can be read back, its last events.
 */
import type { TraceEvent } from '@syncscope/core/trace';

export interface WaitableTrace {
  subscribe(l: (ev: TraceEvent) => void): () => void;
  since?(since: number): readonly TraceEvent[];
  readonly next?: number;
}

/** How many of the newest events a timeout shows. */
const RECENT = 40;

export function waitOnTrace(
  trace: WaitableTrace,
  what: string,
  pred: () => boolean,
  timeoutMs = 30_000,
): Promise<void> {
  return new Promise((resolve, reject) => {
    if (pred()) return resolve();
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}${recentTrace(trace)}`));
    }, timeoutMs);
    const off = trace.subscribe(() => {
      if (!pred()) return;
      clearTimeout(timer);
      off(); // safe inside the listener: the recorder's iteration tolerates a removal
      resolve();
    });
  });
}

function recentTrace(trace: WaitableTrace): string {
  if (!trace.since || trace.next === undefined) return '';
  const lines = trace
    .since(trace.next - RECENT)
    .map((e) => `${e.seq} ${e.type} ${JSON.stringify(e).slice(0, 200)}`);
  return `; recent trace:\n${lines.join('\n')}`;
}
