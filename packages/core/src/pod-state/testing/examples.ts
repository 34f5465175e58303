/**
 * The example pods (examples/*.yaml) run by the engine on the simulated node under a FakeClock, and what
 * kubectl reads of the statuses it reports: the fixtures of the round-trip tests, which write the engine's
 * trace as a kubelet-format log, read it back and compare. Tests only.
 */
import { printPod } from '../../api/kubectl.ts';
import { type Container, type Pod, type PodStatus, rfc3339 } from '../../api/v1.ts';
import type { TraceEvent, TraceOf } from '../../events/trace.ts';
import { simKubelet } from '../../kubelet/testing/sim-kubelet.ts';

const busybox = (name: string, script: string): Container => ({
  name,
  image: 'busybox',
  imagePullPolicy: 'IfNotPresent',
  command: ['sh', '-c', script],
});

export interface Example {
  name: string;
  spec: Pod['spec'];
  forMs: number;
  /**
   * STATUS words a log cannot give for this pod, with why (the reducer leaves them unknown or says what the
   * lines imply); the steps at which the engine reported them are not compared
   */
  cannot?: { words: RegExp; why: string };
  /** compared at every status the engine reports (else at its last one only) */
  everyStatus: boolean;
  /**
   * The verbosities whose log tells this pod's state; at -v=2 a log cannot tell an init container's end
   * from a restart (no line names the container that ended).
   */
  v: number[];
}

/** The example pods, as examples/*.yaml define them. */
export const EXAMPLES: Example[] = [
  {
    name: 'healthy',
    spec: { containers: [busybox('app', 'echo started; while true; do sleep 5; done')] },
    forMs: 30_000,
    everyStatus: true,
    v: [2, 4],
  },
  {
    name: 'crashloop',
    spec: { containers: [busybox('app', 'echo boom; exit 1')] },
    forMs: 4 * 60_000,
    everyStatus: false,
    v: [2, 4],
  },
  {
    name: 'missing-image',
    spec: { containers: [{ name: 'app', image: 'doesnotexist:1' }] },
    forMs: 2 * 60_000,
    everyStatus: true,
    v: [2, 4],
  },
  {
    name: 'completes',
    spec: { restartPolicy: 'Never', containers: [busybox('job', 'echo done; sleep 2; exit 0')] },
    forMs: 30_000,
    everyStatus: true,
    v: [2, 4],
  },
  {
    name: 'init-container',
    spec: {
      initContainers: [busybox('init', 'echo init; sleep 2')],
      containers: [busybox('app', 'echo started; while true; do sleep 5; done')],
    },
    forMs: 30_000,
    cannot: {
      words: /^(Init:|PodInitializing)/,
      why: 'a log does not say which container is an init container',
    },
    everyStatus: false,
    v: [4],
  },
];

/**
 * The examples run together on one simulated node (containers' logs under `logDir`) for `forMs` of the
 * FakeClock: their Pod objects (UID `uid-<name>`, namespace default) and the engine's whole trace.
 */
export async function engineTrace(
  examples: readonly Example[],
  logDir: string,
  forMs = Math.max(...examples.map((e) => e.forMs)),
): Promise<{ pods: Pod[]; events: TraceEvent[] }> {
  const { clock, trace, kl } = simKubelet({ podLogsDirectory: logDir }, 400_000);
  const pods = examples.map(
    (ex): Pod => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        uid: `uid-${ex.name}`,
        name: ex.name,
        namespace: 'default',
        creationTimestamp: rfc3339(clock.now()),
      },
      spec: ex.spec,
    }),
  );
  for (const pod of pods) kl.addPod(pod);
  kl.start();
  await clock.step(forMs);
  const events = trace.since(0, () => true);
  await kl.stop();
  return { pods, events };
}

/** kubectl's STATUS and RESTARTS of a status, and per container (by name) its last exit and restarts. */
export function reported(pod: Pod, status: PodStatus, now: number) {
  const row = printPod({ ...pod, status }, now);
  const containers: Record<string, { lastExit?: number; restarts: number }> = {};
  for (const c of [...(status.initContainerStatuses ?? []), ...(status.containerStatuses ?? [])]) {
    const term = c.state.terminated ?? c.lastState.terminated;
    containers[c.name] = { restarts: c.restartCount, ...(term ? { lastExit: term.exitCode } : {}) };
  }
  return { word: row.status, restarts: Number.parseInt(row.restarts, 10), containers };
}

/** The pod's last status the engine reported, with its time (undefined when it reported none). */
export function lastStatus(events: readonly TraceEvent[], uid: string): TraceOf<'status.update'> | undefined {
  let last: TraceOf<'status.update'> | undefined;
  for (const e of events) if (e.type === 'status.update' && e.podUID === uid) last = e;
  return last;
}

/** The engine's container back-off windows (one per end) of a pod, or of all, in order. */
export function engineWindows(
  events: readonly TraceEvent[],
  uid?: string,
): { container: string; delayS: number }[] {
  const ends = new Map<string, { container: string; delayS: number }>();
  for (const e of events)
    if (e.type === 'backoff' && e.kind === 'container' && (uid === undefined || e.podUID === uid))
      ends.set(`${e.container}/${e.until}`, { container: e.container, delayS: e.delayS });
  return [...ends.values()];
}
