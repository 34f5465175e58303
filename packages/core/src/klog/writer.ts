/**
 * The engine's trace as a kubelet v1.32 would log it: `kubeletLogLines(ev, {v, pid})` maps one trace event to
 * the klog lines (structured text form, see format.ts) the kubelet writes for the same action, each at the
 * verbosity the kubelet logs it with (klog.V(n)), so `v` filters as the kubelet's `-v` does. Pure (no state,
 * no clock: the line's time is the event's) and browser-safe; the server's file sink calls it from a trace
 * listener, so it must not throw or block.
 *
 * Positions (`file:line`) are those of a v1.31.4 kubelet seen in a real log where one was at hand, otherwise
 * the kubelet file with a plausible line (see sources.ts). What the trace does not carry is left out rather than
 * invented: the pod list of "SyncLoop (SYNC) pods", statusVersion, the kill line (the trace's StopContainer
 * has neither the container ID nor the grace period) and remote_image.go's pull failure (its call has no image;
 * the recorder's Failed event names it).
 */
import type { TraceEvent } from '../events/trace.ts';
import { formatGoDuration } from '../kubelet/util/flowcontrol/go-duration.ts';
import { type KlogValue, klogLine } from './format.ts';
import { SOURCES } from './sources.ts';
import { type Pairs, plegLines, probeLines, SYNC_FN, syncResultLines, WORK_TYPE_WORD } from './sync-lines.ts';

export interface KlogWriterOptions {
  /** the kubelet's -v: a line logged at klog.V(n) is written when n <= v */
  v: number;
  /** the thread id klog prints in the header; the server's pid */
  pid: number;
}

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
      at(0, 'E', SOURCES.skipping, 'Skipping pod synchronization', [
        // an aggregate error: one as it is, several in brackets
        ['err', ev.errors.length === 1 ? ev.errors[0] : `[${ev.errors.join(', ')}]`],
      ]);
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
