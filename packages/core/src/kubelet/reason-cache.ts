import type { PodSyncResult } from './container/runtime.ts';

/** Why the last start of a container failed: the error token (e.g. CrashLoopBackOff) and its message. */
export interface ReasonItem {
  err: string;
  message: string;
}

/**
 * ReasonCache (pkg/kubelet/reason_cache.go): the last StartContainer failure per (pod UID, container name),
 * an LRU of at most maxReasonCacheEntries. Written after every runtime SyncPod (update); read by status
 * generation to show a container as Waiting{reason, message} — the way CrashLoopBackOff, ErrImagePull,
 * ImagePullBackOff, CreateContainerError, ... reach the pod status.
 */
export class ReasonCache {
  private readonly cache = new Map<string, ReasonItem>();

  constructor(private readonly capacity = 1000) {}

  /** Stores each failed StartContainer result, clears each successful one. */
  update(uid: string, result: PodSyncResult): void {
    for (const r of result.actions) {
      if (r.action !== 'StartContainer') continue;
      if (r.error) this.add(uid, r.target, r.error, r.message ?? '');
      else this.remove(uid, r.target);
    }
  }

  add(uid: string, name: string, err: string, message: string): void {
    const k = key(uid, name);
    this.cache.delete(k);
    this.cache.set(k, { err, message });
    while (this.cache.size > this.capacity) {
      const oldest = this.cache.keys().next().value as string;
      this.cache.delete(oldest);
    }
  }

  remove(uid: string, name: string): void {
    this.cache.delete(key(uid, name));
  }

  /** A read refreshes the entry's recency, as the LRU does. */
  get(uid: string, name: string): ReasonItem | undefined {
    const k = key(uid, name);
    const v = this.cache.get(k);
    if (v) {
      this.cache.delete(k);
      this.cache.set(k, v);
    }
    return v;
  }
}

function key(uid: string, name: string): string {
  return `${uid}_${name}`;
}
