/**
 * The engine as the benchmarks drive it: a Kubelet (the server's facade) on a RemoteRuntime to a CRI endpoint,
 * pods defaulted as the API server would, and waits driven by the TraceRecorder (never by polling sleeps).
 * Imports go through package exports: bench/ is the workspace package @syncscope/bench.
 */
import { randomUUID } from 'node:crypto';
import { Kubelet } from '@syncscope/core';
import { setPodDefaults } from '@syncscope/core/api/defaults';
import type { Pod } from '@syncscope/core/api/v1';
import { rfc3339 } from '@syncscope/core/api/v1';
import { RealClock } from '@syncscope/core/clock';
import { RemoteRuntime } from '@syncscope/core/cri';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { KubeletConfiguration } from '@syncscope/core/kubelet/configuration';
import type { TraceEvent } from '@syncscope/core/trace';
import { waitOnTrace } from '@syncscope/test/support/wait-trace';

/** Room for every pod a benchmark makes: admission must not turn a load test into rejections. */
export const BENCH_MAX_PODS = 100_000;

export interface BenchEngine {
  kubelet: Kubelet;
  trace: TraceRecorder;
  cri: RemoteRuntime;
  clock: RealClock;
  close(): Promise<void>;
}

/** A Kubelet on `endpoint`; `start: false` leaves its loops off (P2 drives relist by hand, no housekeeping). */
export function startEngine(
  endpoint: string,
  config: Partial<KubeletConfiguration> = {},
  opts: { start?: boolean } = {},
): BenchEngine {
  const clock = new RealClock();
  const trace = new TraceRecorder(clock, 200_000);
  const cri = new RemoteRuntime(endpoint);
  // the benchmarks put up to 5000 pods on one node, far past the kubelet's default --max-pods of 110
  const kubelet = new Kubelet({
    cri,
    clock,
    trace,
    config: { maxPods: BENCH_MAX_PODS, ...config },
    runtimeEndpoint: endpoint,
    simulated: false,
  });
  if (opts.start !== false) kubelet.start();
  return {
    kubelet,
    trace,
    cri,
    clock,
    close: async () => {
      await kubelet.stop();
      cri.close();
    },
  };
}

export interface PodOptions {
  hostNetwork?: boolean;
  containers?: number;
  script?: string;
}

/** A busybox pod (`sh -c <script>`, IfNotPresent), defaulted and stamped as admission would. */
export function benchPod(name: string, clock: Pick<RealClock, 'now'>, o: PodOptions = {}): Pod {
  const n = o.containers ?? 1;
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { app: 'bench' } },
    spec: {
      hostNetwork: o.hostNetwork ?? false,
      terminationGracePeriodSeconds: 0,
      containers: Array.from({ length: n }, (_, i) => ({
        name: `c${i}`,
        image: 'busybox',
        imagePullPolicy: 'IfNotPresent',
        command: ['sh', '-c', o.script ?? 'sleep 3600'],
      })),
    },
  } as Pod;
  const d = setPodDefaults(pod);
  d.metadata = {
    ...d.metadata,
    namespace: 'default',
    uid: randomUUID(),
    creationTimestamp: rfc3339(clock.now()),
  };
  return d;
}

/**
 * Resolves when `pred` holds for some trace event (or at once, asked with none); rejects after timeoutMs,
 * naming what it waited for and the newest events (waitOnTrace).
 */
export function waitForTrace(
  trace: TraceRecorder,
  what: string,
  pred: (ev: TraceEvent | undefined) => boolean,
  timeoutMs = 120_000,
): Promise<void> {
  let held = pred(undefined);
  // subscribed before waitOnTrace's listener, so `held` is current when it asks
  const off = trace.subscribe((ev) => {
    held ||= pred(ev);
  });
  return waitOnTrace(trace, what, () => held, timeoutMs).finally(off);
}

/** Resolves once `done(ev)` has been seen for every pod in `uids` (one pending set, one trace listener). */
function waitAllPods(
  trace: TraceRecorder,
  uids: readonly string[],
  what: string,
  done: (ev: TraceEvent) => string | undefined,
  timeoutMs?: number,
): Promise<void> {
  const pending = new Set(uids);
  return waitForTrace(
    trace,
    `${uids.length} pods ${what}`,
    (ev) => {
      const uid = ev && done(ev);
      if (uid) pending.delete(uid);
      return pending.size === 0;
    },
    timeoutMs,
  );
}

/** Resolves when every pod in `uids` has reached phase Running. */
export function waitAllRunning(
  trace: TraceRecorder,
  uids: readonly string[],
  timeoutMs?: number,
): Promise<void> {
  return waitAllPods(
    trace,
    uids,
    'Running',
    (ev) => (ev.type === 'status.update' && ev.status.phase === 'Running' ? ev.podUID : undefined),
    timeoutMs,
  );
}

/** Resolves when the pod workers of every pod in `uids` have finished (pods torn down). */
export function waitAllFinished(
  trace: TraceRecorder,
  uids: readonly string[],
  timeoutMs?: number,
): Promise<void> {
  return waitAllPods(
    trace,
    uids,
    'finished',
    (ev) =>
      ev.type === 'worker.state' && (ev.to === 'Finished' || ev.to === 'Forgotten') ? ev.podUID : undefined,
    timeoutMs,
  );
}
