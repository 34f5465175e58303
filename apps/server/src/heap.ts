/**
 * The heap goal the engine process runs with. V8 by default lets the old generation grow up to four times what
 * survived the last full GC and hands pages back to the OS only when its memory reducer runs, tens of seconds
 * after a burst. A burst is what the engine does: a node's worth of pods brought up at once is about fifty
 * kilobytes of short-lived gRPC objects per CRI call, eighteen calls per pod, most of them outliving a scavenge
 * while the runtime answers. Measured at 1000 pods (`pnpm bench`, P3): RSS 360–400 MB for half a minute after
 * bring-up with about 55 MB live.
 *
 * The kubelet, a Go program, runs with GOGC=100: the next collection starts when the heap has doubled since the
 * last one. We ask V8 for the same goal (growing factor 1 + 100 %), on the command line that starts the process,
 * where V8 reads its flags: the package scripts (`pnpm start`, `pnpm -s import-log`), the test suites' server
 * processes and the benchmarks' children all pass HEAP_FLAGS, so every one measures the engine as shipped.
 */

/** V8 flags the engine's processes start with (node or tsx, before the script). */
export const HEAP_FLAGS = ['--heap-growing-percent=100'] as const;

/** Whether this process was started with HEAP_FLAGS. */
export function heapTuned(execArgv: readonly string[] = process.execArgv): boolean {
  return HEAP_FLAGS.every((f) => execArgv.includes(f));
}
