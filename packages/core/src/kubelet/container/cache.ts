import type { PodStatusRT } from './runtime.ts';

/**
 * Cache (pkg/kubelet/container/cache.go): the newest runtime PodStatus of every pod, written by the PLEG and
 * read by the pod workers. Each entry carries the time it reflects (`modified`: when the PLEG began reading
 * that pod's status); the cache as a whole carries a global timestamp (`updateTime`, set at the end of each
 * full relist to the time it began) meaning "everything here is at least this fresh".
 *
 * getNewerThan(uid, minTime) is what keeps a pod worker from acting on stale state: it resolves once the
 * entry was modified after minTime, or the global timestamp passed minTime (then an unknown pod reads as an
 * empty status). A worker passes the end time of its previous sync, so it waits for the next relist.
 */
export interface PodCacheEntry {
  status: PodStatusRT;
  error?: Error;
}

interface Data extends PodCacheEntry {
  modified: number;
}

interface Subscriber {
  minTime: number;
  resolve: (d: PodCacheEntry) => void;
}

export class PodCache {
  private readonly pods = new Map<string, Data>();
  private timestamp: number | undefined;
  private readonly subscribers = new Map<string, Subscriber[]>();

  /** The cached status; an unknown pod yields an empty status `{id}` and no error. */
  get(uid: string): PodCacheEntry {
    return this.getData(uid);
  }

  getNewerThan(uid: string, minTime: number): Promise<PodCacheEntry> {
    const d = this.getIfNewerThan(uid, minTime);
    if (d) return Promise.resolve(d);
    return new Promise((resolve) => {
      const list = this.subscribers.get(uid) ?? [];
      list.push({ minTime, resolve });
      this.subscribers.set(uid, list);
    });
  }

  /**
   * With the evented PLEG on, a write older than the cached entry is refused (events and relists race);
   * the kubelet ties this to its EventedPLEG gate, the engine to `config.eventedPleg`.
   */
  ignoreOlderWrites = false;

  /** Writes the entry and wakes its waiters; false when refused as older (see ignoreOlderWrites). */
  set(uid: string, status: PodStatusRT, error: Error | undefined, timestamp: number): boolean {
    const cached = this.pods.get(uid);
    if (this.ignoreOlderWrites && cached && cached.modified > timestamp) return false;
    const d: Data = { status, modified: timestamp };
    if (error) d.error = error;
    this.pods.set(uid, d);
    this.notify(uid, timestamp);
    return true;
  }

  delete(uid: string): void {
    this.pods.delete(uid);
  }

  /** Bumps the global timestamp and wakes every waiter it satisfies. */
  updateTime(timestamp: number): void {
    this.timestamp = timestamp;
    for (const uid of [...this.subscribers.keys()]) this.notify(uid, timestamp);
  }

  /** Global timestamp (undefined until the first full relist). */
  get globalTimestamp(): number | undefined {
    return this.timestamp;
  }

  /** Number of workers waiting (tests). */
  get waiting(): number {
    let n = 0;
    for (const l of this.subscribers.values()) n += l.length;
    return n;
  }

  private getData(uid: string): Data {
    return this.pods.get(uid) ?? { status: emptyStatus(uid), modified: 0 };
  }

  private getIfNewerThan(uid: string, minTime: number): PodCacheEntry | undefined {
    const d = this.pods.get(uid);
    const globalIsNewer = this.timestamp !== undefined && this.timestamp > minTime;
    if (!d && globalIsNewer) return { status: emptyStatus(uid) };
    if (d && (d.modified > minTime || globalIsNewer)) return d;
    return undefined;
  }

  private notify(uid: string, timestamp: number): void {
    const list = this.subscribers.get(uid);
    if (!list) return;
    const keep: Subscriber[] = [];
    for (const s of list) {
      if (timestamp < s.minTime) keep.push(s);
      else s.resolve(this.getData(uid));
    }
    if (keep.length > 0) this.subscribers.set(uid, keep);
    else this.subscribers.delete(uid);
  }
}

function emptyStatus(uid: string): PodStatusRT {
  return {
    id: uid,
    name: '',
    namespace: '',
    ips: [],
    containerStatuses: [],
    sandboxStatuses: [],
    timestamp: 0,
  };
}
