/**
 * The heap goal the engine process runs with. V8 by default lets the old generation grow up to four times what
 * survived the last full GC and hands pages back to the OS only when its memory reducer runs, tens of seconds
 * after a burst. A burst is what the engine does: a node's worth of pods brought up at once is about fifty
 * kilobytes of short-lived gRPC objects per CRI call, eighteen calls per pod, most of them outliving a scavenge
 * while the runtime answers. Measured at 1000 pods (`pnpm bench`, P3): RSS 360–400 MB for half a minute after
 * bring-up with about 55 MB live.
 *
 * The kubelet, a Go program, runs with GOGC=100: the next collection starts when the heap has doubled since the
 * last one. We ask V8 for the same goal (growing factor 1 + 100 %). Called once, first thing, by the server's
 * entry point and by the benchmarks that run the engine in-process, so both measure the engine as shipped.
 */
import { setFlagsFromString } from 'node:v8';

/** V8 flags applied by `tuneHeap`. */
export const HEAP_FLAGS = ['--heap-growing-percent=100'] as const;

let applied = false;

/** Applies HEAP_FLAGS to this process's V8 (idempotent). V8 reads the growing factor at every full GC. */
export function tuneHeap(): void {
  if (applied) return;
  for (const flag of HEAP_FLAGS) setFlagsFromString(flag);
  applied = true;
}
