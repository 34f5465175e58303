/**
 * The engine's trace as a kubelet v1.32 would log it: `kubeletLogLines(ev, {v, pid})` maps one trace event to
 * the klog lines (structured text form, see format.ts) the kubelet writes for the same action, each at the
 * verbosity the kubelet logs it with (klog.V(n)), so `v` filters as the kubelet's `-v` does. Pure (no state,
 * no clock: the line's time is the event's) and browser-safe; the server's file sink calls it from a trace
 * listener, so it must not throw or block.
 *
 * Positions (`file:line`) are those of a v1.31.4 kubelet seen in a real log where one was at hand, otherwise
 * the kubelet file with a plausible line (see SOURCES). What the trace does not carry is left out rather than
 * invented: the pod list of "SyncLoop (SYNC) pods", statusVersion, the kill line (the trace's StopContainer
 * has neither the container ID nor the grace period) and remote_image.go's pull failure (its call has no image;
 * the recorder's Failed event names it).
 */
import type { TraceEvent, TraceOf, WorkType } from '../events/trace.ts';
import { formatGoDuration } from '../kubelet/util/flowcontrol/go-duration.ts';
import { goQuote, type KlogValue, klogLine } from './format.ts';

export interface KlogWriterOptions {
  /** the kubelet's -v: a line logged at klog.V(n) is written when n <= v */
  v: number;
  /** the thread id klog prints in the header; the server's pid */
  pid: number;
}

/** Where each line comes from in the kubelet source. */
export const SOURCES = {
  syncLoopStart: 'kubelet.go:2346',
  ADD: 'kubelet.go:2421',
  UPDATE: 'kubelet.go:2428',
  REMOVE: 'kubelet.go:2431',
  RECONCILE: 'kubelet.go:2434',
  DELETE: 'kubelet.go:2437',
  plegEvent: 'kubelet.go:2453',
  syncPods: 'kubelet.go:2482',
  housekeeping: 'kubelet.go:2496',
  housekeepingEnd: 'kubelet.go:2509',
  skipping: 'kubelet.go:2361',
  syncPodEnter: 'kubelet.go:1679',
  syncPodExit: 'kubelet.go:1681',
  syncTerminatingEnter: 'kubelet.go:2005',
  syncTerminatingExit: 'kubelet.go:2006',
  syncTerminatedEnter: 'kubelet.go:2159',
  syncTerminatedExit: 'kubelet.go:2160',
  containerFinished: 'generic.go:334',
  genericPleg: 'generic.go:254',
  firstTime: 'pod_workers.go:780',
  notifying: 'pod_workers.go:975',
  processing: 'pod_workers.go:1239',
  syncError: 'pod_workers.go:1301',
  canceled: 'pod_workers.go:1297',
  observedTerminate: 'pod_workers.go:1063',
  complete: 'pod_workers.go:1462',
  forgotten: 'pod_workers.go:1196',
  backOff: 'kuberuntime_manager.go:1312',
  noSandbox: 'util.go:30',
  probeFailed: 'prober.go:107',
  probeSucceeded: 'prober.go:117',
  probeUnknown: 'prober.go:111',
  statusUpdated: 'status_manager.go:874',
  event: 'event.go:389',
} as const;

type Pairs = (readonly [string, KlogValue | undefined])[];

const WORK_TYPE_WORD: Record<WorkType, string> = {
  SyncPod: 'sync',
  TerminatingPod: 'terminating',
  TerminatedPod: 'terminated',
};
const SYNC_FN: Record<WorkType, 'SyncPod' | 'SyncTerminatingPod' | 'SyncTerminatedPod'> = {
  SyncPod: 'SyncPod',
  TerminatingPod: 'SyncTerminatingPod',
  TerminatedPod: 'SyncTerminatedPod',
};

/** format.Pod: `name_namespace(uid)` from the trace's "namespace/name". */
export function formatPodRef(pod: string, uid: string): string {
  const slash = pod.indexOf('/');
  return `${pod.slice(slash + 1)}_${pod.slice(0, slash)}(${uid})`;
}

export function kubeletLogLines(ev: TraceEvent, opts: KlogWriterOptions): string[] {
  const out: string[] = [];
  const at = (
    n: number,
    severity: 'I' | 'E',
    source: string,
    msg: string,
    pairs: Pairs = [],
    time = ev.time,
  ) => {
    if (n <= opts.v) out.push(klogLine(severity, time, opts.pid, source, msg, pairs));
  };
  switch (ev.type) {
    case 'server.start':
      at(0, 'I', SOURCES.syncLoopStart, 'Starting kubelet main sync loop');
      break;
    case 'config.update':
      at(ev.op === 'RECONCILE' ? 4 : 2, 'I', SOURCES[ev.op], `SyncLoop ${ev.op}`, [
        ['source', ev.source],
        ['pods', [ev.pod]],
      ]);
      break;
    case 'pleg.event':
      plegLines(ev, at);
      break;
    case 'loop.iteration':
      if (ev.source === 'sync') at(4, 'I', SOURCES.syncPods, 'SyncLoop (SYNC) pods', [['total', ev.pods]]);
      if (ev.source === 'housekeeping') at(4, 'I', SOURCES.housekeeping, 'SyncLoop (housekeeping)');
      break;
    case 'housekeeping':
      at(4, 'I', SOURCES.housekeepingEnd, 'SyncLoop (housekeeping) end', [
        ['duration', formatGoDuration(Math.round(ev.durationMs))],
      ]);
      break;
    case 'loop.skipped':
      at(0, 'E', SOURCES.skipping, 'Skipping pod synchronization', [['err', ev.errors.join(', ')]]);
      break;
    case 'worker.update':
      if (ev.updateType === 'SyncPodCreate')
        at(4, 'I', SOURCES.firstTime, 'Pod is being synced for the first time', [
          ['pod', ev.pod],
          ['podUID', ev.podUID],
          ['updateType', 'create'],
        ]);
      at(4, 'I', SOURCES.notifying, 'Notifying pod of pending update', [
        ['pod', ev.pod],
        ['podUID', ev.podUID],
        ['workType', ev.updateType === 'SyncPodKill' ? 'terminating' : 'sync'],
      ]);
      break;
    case 'worker.state':
      if (ev.to === 'TerminatingPod')
        at(4, 'I', SOURCES.observedTerminate, 'Pod worker has observed request to terminate', [
          ['podUID', ev.podUID],
        ]);
      if (ev.to === 'Finished')
        at(4, 'I', SOURCES.complete, 'Pod is complete and the worker can now stop', [['podUID', ev.podUID]]);
      if (ev.to === 'Forgotten')
        at(
          2,
          'I',
          SOURCES.forgotten,
          'Pod has been terminated and is no longer known to the kubelet, remove all history',
          [['podUID', ev.podUID]],
        );
      break;
    case 'sync.start': {
      const ref: Pairs = [
        ['pod', ev.pod],
        ['podUID', ev.podUID],
      ];
      at(4, 'I', SOURCES.processing, 'Processing pod event', [
        ...ref,
        ['updateType', WORK_TYPE_WORD[ev.workType]],
      ]);
      const src =
        ev.workType === 'SyncPod'
          ? SOURCES.syncPodEnter
          : ev.workType === 'TerminatingPod'
            ? SOURCES.syncTerminatingEnter
            : SOURCES.syncTerminatedEnter;
      at(4, 'I', src, `${SYNC_FN[ev.workType]} enter`, ref);
      break;
    }
    case 'sync.result':
      syncResultLines(ev, at);
      break;
    case 'backoff':
      if (ev.kind === 'container')
        at(3, 'I', SOURCES.backOff, 'Back-off restarting failed container', [
          [
            'err',
            `back-off ${formatGoDuration(ev.delayS * 1000)} restarting failed container=${ev.container} pod=${formatPodRef(ev.pod, ev.podUID)}`,
          ],
        ]);
      break;
    case 'runtime.call':
      if (ev.method === 'RunPodSandbox' && ev.pod)
        at(
          2,
          'I',
          SOURCES.noSandbox,
          'No sandbox for pod can be found. Need to start a new one',
          [['pod', ev.pod]],
          ev.time - ev.durationMs,
        );
      break;
    case 'probe.result':
      probeLines(ev, at);
      break;
    case 'status.update':
      at(3, 'I', SOURCES.statusUpdated, 'Status for pod updated successfully', [
        ['pod', ev.pod],
        ['status', ev.status as unknown as KlogValue],
      ]);
      break;
    case 'k8s.event':
      // the kubelet's event broadcaster logs every event it records (StartStructuredLogging(3))
      at(3, 'I', SOURCES.event, 'Event occurred', [
        ['object', ev.pod],
        ['fieldPath', ev.fieldPath ?? ''],
        ['kind', 'Pod'],
        ['apiVersion', 'v1'],
        ['type', ev.eventType],
        ['reason', ev.reason],
        ['message', ev.message],
      ]);
      break;
    default:
      // relists, runtime state, the server's own and imported-only events have no kubelet line
      break;
  }
  return out;
}

type At = (n: number, severity: 'I' | 'E', source: string, msg: string, pairs?: Pairs, time?: number) => void;

function plegLines(ev: TraceOf<'pleg.event'>, at: At): void {
  if (ev.event === 'ContainerDied' && ev.exitCode !== undefined)
    at(2, 'I', SOURCES.containerFinished, 'Generic (PLEG): container finished', [
      ['podID', ev.podUID],
      ['containerID', ev.containerID],
      ['exitCode', ev.exitCode],
    ]);
  if (ev.event === 'ContainerRemoved') {
    // not worth a sync (isSyncPodWorthy): only the relist's own -v=4 line shows it
    at(4, 'I', SOURCES.genericPleg, 'GenericPLEG', [
      ['podUID', ev.podUID],
      ['containerID', ev.containerID],
      ['oldState', 'exited'],
      ['newState', 'non-existent'],
    ]);
    return;
  }
  at(2, 'I', SOURCES.plegEvent, 'SyncLoop (PLEG): event for pod', [
    ['pod', ev.pod],
    ['event', { ID: ev.podUID, Type: ev.event, Data: ev.containerID }],
  ]);
}

function syncResultLines(ev: TraceOf<'sync.result'>, at: At): void {
  const ref: Pairs = [
    ['pod', ev.pod],
    ['podUID', ev.podUID],
  ];
  const fn = SYNC_FN[ev.workType];
  const src =
    ev.workType === 'SyncPod'
      ? SOURCES.syncPodExit
      : ev.workType === 'TerminatingPod'
        ? SOURCES.syncTerminatingExit
        : SOURCES.syncTerminatedExit;
  at(
    4,
    'I',
    src,
    `${fn} exit`,
    ev.workType === 'SyncPod' ? [...ref, ['isTerminal', ev.isTerminal ?? false]] : ref,
  );
  if (ev.error === undefined) return;
  if (ev.error === 'context canceled')
    at(2, 'I', SOURCES.canceled, 'Sync exited with context cancellation error', [
      ...ref,
      ['updateType', WORK_TYPE_WORD[ev.workType]],
    ]);
  else at(0, 'E', SOURCES.syncError, 'Error syncing pod, skipping', [['err', kubeletSyncError(ev)], ...ref]);
}

/**
 * The sync error as the kubelet's PodSyncResult.Error() prints it: each failed SyncResult as
 * `failed to "<action>" for "<target>" with <Reason>: "<message>"` (action, target and message Go-quoted),
 * several as an aggregate `[a, b]`; "failed to SyncPod: " only before an error outside the results. The
 * engine's error text is kept as it is when it says more than its results.
 */
export function kubeletSyncError(ev: TraceOf<'sync.result'>): string {
  const failed = ev.actions.filter((a) => a.error);
  if (failed.length === 0 || ev.error === undefined) return ev.error ?? '';
  const plain = failed.map(
    (a) => `failed to "${a.action}" for "${a.target}" with ${a.error}: "${a.message ?? ''}"`,
  );
  const engine = `failed to SyncPod: ${plain.length === 1 ? plain[0] : `[${plain.join(', ')}]`}`;
  if (ev.error !== engine) return ev.error;
  const parts = failed.map(
    (a) =>
      `failed to ${goQuote(a.action)} for ${goQuote(a.target)} with ${a.error}: ${goQuote(a.message ?? '')}`,
  );
  return parts.length === 1 ? (parts[0] as string) : `[${parts.join(', ')}]`;
}

function probeLines(ev: TraceOf<'probe.result'>, at: At): void {
  const pairs: Pairs = [
    ['probeType', ev.probe],
    ['pod', ev.pod],
    ['podUID', ev.podUID],
    ['containerName', ev.container],
  ];
  if (ev.result === 'Success') at(3, 'I', SOURCES.probeSucceeded, 'Probe succeeded', pairs);
  else if (ev.result === 'Failure')
    at(1, 'I', SOURCES.probeFailed, 'Probe failed', [
      ...pairs,
      ['probeResult', 'failure'],
      ['output', ev.output ?? ''],
    ]);
  else
    at(1, 'I', SOURCES.probeUnknown, 'Probe unknown without error', [...pairs, ['probeResult', 'unknown']]);
}
