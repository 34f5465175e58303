import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kubelet, TraceRecorder } from '@syncscope/core';
import type { Pod } from '@syncscope/core/api/v1';
import { FakeClock } from '@syncscope/core/clock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  durableEngine,
  handleShutdownSignals,
  persistPods,
  SIGNAL_REPEAT_MS,
  storeHealth,
} from './lifecycle.ts';
import { idleKubelet, pod } from './lifecycle-testing.ts';
import { StatusError } from './status.ts';
import { PodStore } from './store/pod-store.ts';
import { StoreWriteError, storeFailureStatus } from './store/write-error.ts';

/** The engine (not started: its pod config is what the API acts on) with the store and the write path. */
describe('the durable write path', () => {
  let root: string;
  let dir: string;
  let warnings: string[];
  let clock: FakeClock;
  let trace: TraceRecorder;
  let kl: Kubelet;
  let store: PodStore;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'syncscope-durable-'));
    dir = join(root, 'pods');
    warnings = [];
    clock = new FakeClock();
    trace = new TraceRecorder(clock);
    kl = idleKubelet(clock, trace);
    store = new PodStore(dir, { warn: (m) => warnings.push(m) });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** The store's directory replaced by a file: every write is refused (ENOTDIR), as root too. */
  const breakStore = () => {
    renameSync(dir, `${dir}.away`);
    writeFileSync(dir, '');
  };
  const mendStore = () => {
    rmSync(dir);
    renameSync(`${dir}.away`, dir);
  };
  const refusal = (fn: () => void) => {
    try {
      fn();
    } catch (err) {
      if (err instanceof StatusError) return err.status;
      throw err;
    }
    throw new Error('not refused');
  };
  const configEvents = () => trace.since(0, (e) => e.type === 'config.update').length;

  it('refuses a create it cannot store: 503 naming the file, and the engine never sees the pod', () => {
    const api = durableEngine(kl, store, clock);
    breakStore();
    expect(refusal(() => api.addPod(pod('web', 'uid-1')))).toMatchObject({
      kind: 'Status',
      code: 503,
      reason: 'ServiceUnavailable',
      message: `pod store: cannot write ${join(dir, 'uid-1.json')}: not a directory`,
    });
    expect(kl.getPods()).toEqual([]);
    expect(configEvents()).toBe(0);
    expect(storeHealth(store, { stop: () => {}, pending: new Set() })).toMatch(/^degraded: pod store/);

    mendStore(); // writes resume by themselves
    api.addPod(pod('web', 'uid-1'));
    expect(kl.getPods().map((p) => p.metadata.uid)).toEqual(['uid-1']);
    expect(new PodStore(dir).load().map((p) => p.metadata.uid)).toEqual(['uid-1']);
  });

  it('refuses an update it cannot store: 503, and neither the engine nor the disk changes', () => {
    const api = durableEngine(kl, store, clock);
    api.addPod(pod('web', 'uid-1'));
    const events = configEvents();
    const before = kl.podConfig.get('uid-1');
    const changed = { ...(before as Pod), metadata: { ...(before as Pod).metadata, labels: { v: '2' } } };
    breakStore();
    expect(refusal(() => api.updatePod(changed))).toMatchObject({ code: 503, reason: 'ServiceUnavailable' });
    expect(kl.podConfig.get('uid-1')?.metadata.labels).toEqual(before?.metadata.labels);
    expect(configEvents()).toBe(events);
    mendStore();
    expect(new PodStore(dir).load()[0]?.metadata.labels).toEqual(before?.metadata.labels);
  });

  it('refuses a delete it cannot store, and stores the deletion the engine then acts on', () => {
    const api = durableEngine(kl, store, clock);
    const persistence = persistPods(trace, kl, store, (m) => warnings.push(m));
    api.addPod(pod('web', 'uid-1'));
    breakStore();
    expect(refusal(() => api.deletePod('uid-1', 5)).code).toBe(503);
    expect(kl.getPodByUID('uid-1')?.metadata.deletionTimestamp).toBeUndefined();

    mendStore();
    clock.step(1234);
    api.deletePod('uid-1', 5);
    const inEngine = kl.podConfig.get('uid-1')?.metadata;
    const onDisk = new PodStore(dir).load()[0]?.metadata;
    expect(inEngine?.deletionTimestamp).toBeDefined();
    expect(onDisk).toEqual(inEngine);
    expect(onDisk?.deletionGracePeriodSeconds).toBe(5);
    expect(persistence.pending.size).toBe(0);
    expect(warnings).toEqual([]);
  });

  it('keeps an engine write the disk refused, says so on /healthz, and writes it with the next change', () => {
    const api = durableEngine(kl, store, clock);
    const persistence = persistPods(trace, kl, store, (m) => warnings.push(m));
    api.addPod(pod('done', 'uid-1'));
    api.deletePod('uid-1', 5);
    breakStore();
    kl.podConfig.finalDelete('uid-1'); // the engine's final delete, once the worker finished
    expect([...persistence.pending]).toEqual(['uid-1']);
    expect(warnings).toEqual([
      `pod store: cannot write ${join(dir, 'uid-1.json')}: not a directory (the change is kept and retried)`,
    ]);
    expect(storeHealth(store, persistence)).toBe(
      `degraded: 1 pod change not saved: pod store: cannot write ${join(dir, 'uid-1.json')}: not a directory`,
    );

    mendStore();
    api.addPod(pod('next', 'uid-2'));
    expect(persistence.pending.size).toBe(0);
    expect(storeHealth(store, persistence)).toBeUndefined();
    expect(new PodStore(dir).load().map((p) => p.metadata.uid)).toEqual(['uid-2']);
  });

  it('answers 507 when the disk is full and 503 for any other refusal', () => {
    const err = (code: string, words: string) =>
      StoreWriteError.from(
        Object.assign(new Error(`${code}: ${words}, write`), { code }),
        '/d/store/pods/u.json',
      );
    expect(storeFailureStatus(err('ENOSPC', 'no space left on device'))).toMatchObject({
      code: 507,
      reason: 'InsufficientStorage',
      message: 'pod store: cannot write /d/store/pods/u.json: no space left on device',
    });
    expect(storeFailureStatus(err('EDQUOT', 'disk quota exceeded')).code).toBe(507);
    expect(storeFailureStatus(err('EROFS', 'read-only file system'))).toMatchObject({
      code: 503,
      reason: 'ServiceUnavailable',
      message: 'pod store: cannot write /d/store/pods/u.json: read-only file system',
    });
    expect(storeFailureStatus(err('EIO', 'i/o error')).code).toBe(503);
  });

  it('does not write again what the store already holds (the engine echoing an API change, a restore)', () => {
    const api = durableEngine(kl, store, clock);
    persistPods(trace, kl, store, (m) => warnings.push(m));
    api.addPod(pod('web', 'uid-1'));
    const before = readFileSync(join(dir, 'uid-1.json'), 'utf8');
    breakStore(); // a write now would fail
    store.put(kl.podConfig.get('uid-1') as Pod);
    expect(store.failure).toBeUndefined();
    mendStore();
    expect(readFileSync(join(dir, 'uid-1.json'), 'utf8')).toBe(before);
  });
});

describe('shutdown signals', () => {
  it('takes one Ctrl-C that arrives twice as one request, and a later second signal as "exit now"', async () => {
    let t = 1_000;
    const exits: number[] = [];
    let finish: () => void = () => {};
    const closing = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const remove = handleShutdownSignals({
      close: () => closing,
      log: () => {},
      exit: (code) => exits.push(code),
      now: () => t,
      timeoutMs: 60_000,
    });
    try {
      process.emit('SIGINT', 'SIGINT');
      t += SIGNAL_REPEAT_MS - 1; // the same Ctrl-C relayed by a wrapper
      process.emit('SIGINT', 'SIGINT');
      expect(exits).toEqual([]);
      t += 2; // a second Ctrl-C: the user insists
      process.emit('SIGINT', 'SIGINT');
      expect(exits).toEqual([1]);
      finish();
      await closing;
      await Promise.resolve();
      expect(exits).toEqual([1, 0]);
    } finally {
      remove();
    }
  });
});
