import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kubelet, TraceRecorder } from '@syncscope/core';
import type { Pod } from '@syncscope/core/api/v1';
import { FakeClock } from '@syncscope/core/clock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { durableEngine, persistPods } from './lifecycle.ts';
import { idleKubelet, pod } from './lifecycle-testing.ts';
import type { StatusError } from './status.ts';
import { PodStore } from './store/pod-store.ts';
import { StoreWriteError } from './store/write-error.ts';

/** A pod store on a disk that fills up: while `full`, every write of a file fails with ENOSPC (an unlink works). */
class FillingStore extends PodStore {
  full = false;
  override put(pod: Pod): void {
    if (this.full) throw new StoreWriteError('ENOSPC', `${pod.metadata.uid}.json`, 'no space left on device');
    super.put(pod);
  }
}

describe('a full disk', () => {
  let root: string;
  let clock: FakeClock;
  let trace: TraceRecorder;
  let kl: Kubelet;
  let store: FillingStore;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'syncscope-full-'));
    clock = new FakeClock();
    trace = new TraceRecorder(clock);
    kl = idleKubelet(clock, trace);
    store = new FillingStore(join(root, 'pods'), { warn: () => {} });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('never refuses a delete: the pod is deleted, and its record removed so the delete holds after a crash', () => {
    const api = durableEngine(kl, store, clock);
    const warnings: string[] = [];
    persistPods(trace, kl, store, (m) => warnings.push(m));
    api.addPod(pod('chatty', 'uid-1'));
    api.addPod(pod('other', 'uid-2'));
    store.full = true;

    // a create is refused, 507 naming the cause
    let refused: unknown;
    try {
      api.addPod(pod('new', 'uid-3'));
    } catch (e) {
      refused = e;
    }
    expect((refused as StatusError).status).toMatchObject({ code: 507, reason: 'InsufficientStorage' });

    // a delete goes on
    expect(() => api.deletePod('uid-1', 5)).not.toThrow();
    expect(kl.getPodByUID('uid-1')?.metadata.deletionTimestamp).toBeDefined();
    // a restart finds only the pod that was not deleted
    expect(new PodStore(join(root, 'pods')).load().map((p) => p.metadata.uid)).toEqual(['uid-2']);
  });
});
