import type { PassiveClock } from '../../../clock/clock.ts';

/**
 * WorkQueue (pkg/kubelet/util/queue/work_queue.go): pod UIDs with the time they become due. The pod workers
 * enqueue a UID after every sync (requeue policy in pod-workers.ts); the sync loop's 1 s ticker calls
 * getWork() and sends a SyncPodSync to each due pod. Enqueueing an already queued UID replaces its time.
 */
export interface WorkQueue {
  /** Removes and returns every UID whose due time is strictly before now. */
  getWork(): string[];
  enqueue(uid: string, delayMs: number): void;
}

export class BasicWorkQueue implements WorkQueue {
  private readonly queue = new Map<string, number>();

  constructor(private readonly clock: PassiveClock) {}

  getWork(): string[] {
    const now = this.clock.now();
    const out: string[] = [];
    for (const [uid, due] of this.queue) {
      if (now > due) {
        out.push(uid);
        this.queue.delete(uid);
      }
    }
    return out;
  }

  enqueue(uid: string, delayMs: number): void {
    this.queue.set(uid, this.clock.now() + delayMs);
  }

  /** Due time of a UID (tests and the UI's "next sync" marker). */
  dueAt(uid: string): number | undefined {
    return this.queue.get(uid);
  }
}
