/**
 * The pod worker (pod_workers.go, -v=4/5) and the sync functions' enter/exit lines (kubelet.go, -v=4), all
 * structured (v1.22+; older kubelets had no pod worker state machine to log):
 *   "Pod is being synced for the first time" pod podUID updateType="create"   → worker.update, worker.state SyncPod
 *   "Notifying pod of pending update" pod podUID workType="sync"             → worker.update
 *   "Processing pod event" pod podUID updateType="sync"|"terminating"|…      → sync.start  (0|1|2 before v1.27)
 *   "SyncPod enter"/"SyncPod exit" isTerminal=…  ("syncPod …" before v1.27)      → sync.start / sync.result
 *   "SyncTerminatingPod enter"/"exit", "SyncTerminatedPod enter"/"exit"      → worker.state, sync.result
 *   "Pod is orphaned and must be torn down", "… begin teardown"                 → worker.update SyncPodKill, TerminatingPod
 *   "Pod has been deleted and must be killed", "Clean up containers for orphaned pod we had not seen before"
 *   ("Clean up orphaned pod containers" before v1.27), "Handling termination and deletion of the pod to pod
 *   workers" (v1.27+)                                                        → the same
 *   "Pod is restartable after termination due to UID reuse" (v1.23-v1.26), "Pod will be restarted because …
 *   (likely due to UID reuse)" (v1.27+)                                      → worker.update SyncPodCreate, SyncPod
 *   "Pod is orphaned and still running, began terminating" (v1.27+)          → worker.state TerminatingPod
 *   "Pod worker has observed request to terminate", "… completed naturally …"  → worker.state TerminatingPod
 *   "SyncTerminatingRuntimePod enter"/"exit" (an orphan, v1.27+)              → as SyncTerminatingPod
 *   "Pod terminated all containers successfully"                              → worker.state TerminatedPod
 *   "Pod terminated all orphaned containers successfully and worker can now stop" → worker.state Finished
 *   "Pod is complete and the worker can now stop"                             → worker.state Finished
 *   "Pod never started and the worker can now stop", "Pod cannot start ever"  → worker.state Finished
 *   "Pod has been terminated and is no longer known to the kubelet, remove all history" → Forgotten
 *   (also "… but another pod with the same UID was created, remove history to allow restart")
 */
import type { UpdateType, WorkType } from '../../events/trace.ts';
import { fromRef } from '../pods.ts';
import { type Ctx, type Draft, type Msg, waiting } from '../state.ts';

const UPDATE_TYPES: Record<string, UpdateType> = {
  create: 'SyncPodCreate',
  update: 'SyncPodUpdate',
  sync: 'SyncPodSync',
  kill: 'SyncPodKill',
};
const WORK_TYPES: Record<string, WorkType> = {
  sync: 'SyncPod',
  terminating: 'TerminatingPod',
  terminated: 'TerminatedPod',
  // v1.22-v1.26: PodWorkType had no String method, klog printed its number
  '0': 'SyncPod',
  '1': 'TerminatingPod',
  '2': 'TerminatedPod',
};
/**
 * Lines that say a worker is asked to kill its pod: UpdatePod's teardown lines, and the lines written just before
 * an UpdatePod call that asks it (deletePod, -v=3; HandlePodCleanups for a pod the runtime runs and no worker
 * knows, -v=2, "Killing unwanted pod" before v1.22). Lines of one call are one update.
 */
const TEARDOWN = new Set([
  'Pod is orphaned and must be torn down',
  'Pod is marked for graceful deletion, begin teardown',
  'Pod is being evicted by the kubelet, begin teardown',
  'Pod is being removed by the kubelet, begin teardown',
  'Pod is in a terminal phase (success/failed), begin teardown',
  'Pod has been deleted and must be killed',
  'Clean up containers for orphaned pod we had not seen before',
  // the same line before v1.27
  'Clean up orphaned pod containers',
  // HandlePodCleanups: a terminal pod, deleted, no worker knows (v1.27+, -v=3)
  'Handling termination and deletion of the pod to pod workers',
]);
/**
 * HandlePodCleanups restarts a pod whose UID came back (a static pod) once its old worker is gone (-v=3), then
 * calls UpdatePod to create it: one update with that call's lines.
 */
const RESTART = new Set([
  'Pod is restartable after termination due to UID reuse',
  'Pod will be restarted because it is in the desired set and not known to the pod workers (likely due to UID reuse)',
]);
const QUIET = new Set([
  'Processing pod event done',
  'Pod is finished processing, no further updates',
  'Pod worker has stopped',
  'Pod does not exist in pod workers',
  // SyncKnownPods on an orphan not yet started (its history is then removed) or already terminating
  'Pod is orphaned and has not been started',
  'Pod is orphaned and still terminating, notified the pod worker',
]);

export function workers(m: Msg, ctx: Ctx): boolean {
  const s = m.s;
  if (!s) return false;
  const pod = fromRef(s.kv.pod);
  const podUID = s.kv.podUID;
  if (!pod && !podUID) return QUIET.has(s.msg);
  const node = ctx.node;
  // a line merged into an update before it emits nothing: the name it gives still reaches that update
  if (pod && podUID) node.pods.note(pod, podUID);
  const key = podUID ?? pod ?? '';
  // the sync functions were unexported before v1.27: "syncPod enter"
  // and the runtime-only pod's (an orphan, v1.27+) is the terminating one's
  const msg = (
    s.msg.charCodeAt(0) === 115 && s.msg.startsWith('sync') ? `S${s.msg.slice(1)}` : s.msg
  ).replace('SyncTerminatingRuntimePod', 'SyncTerminatingPod');
  // one UpdatePod call may write "first time", a teardown line and "Notifying pod of pending update": one update
  const announced = node.announced.get(key);
  node.announced.delete(key);
  if (TEARDOWN.has(msg)) {
    if (announced && waiting(announced.update)) {
      // the first update of a pod to be torn down (an orphan after a restart): a kill, and the worker terminating
      (announced.update as { updateType?: UpdateType }).updateType = 'SyncPodKill';
      if (announced.state && waiting(announced.state))
        (announced.state as { to?: string }).to = 'TerminatingPod';
      node.worker.set(key, 'TerminatingPod');
      node.announced.set(key, announced);
      return true;
    }
    const d: Draft = { type: 'worker.update', updateType: 'SyncPodKill', coalesced: false, pod, podUID };
    ctx.emit(d);
    // a worker past terminating drops the kill (UpdatePod: "Pod is finished processing, no further updates")
    const now = node.worker.get(key);
    const state =
      now === undefined || now === 'SyncPod' ? node.workerTo(ctx, podUID, pod, 'TerminatingPod') : undefined;
    node.announced.set(key, { update: d, state });
    return true;
  }
  if (RESTART.has(msg)) {
    const d: Draft = { type: 'worker.update', updateType: 'SyncPodCreate', coalesced: false, pod, podUID };
    ctx.emit(d);
    node.announced.set(key, { update: d, state: node.workerTo(ctx, podUID, pod, 'SyncPod'), before: true });
    return true;
  }
  switch (msg) {
    case 'Pod is being synced for the first time': {
      const announcedType = (announced?.update as { updateType?: UpdateType } | undefined)?.updateType;
      if (
        announced &&
        announcedType &&
        waiting(announced.update) &&
        (announcedType === 'SyncPodKill' || announced.before)
      ) {
        // the UpdatePod call a cleanup line announced: an orphan's kill, a pod restarted after its UID came back
        node.updateType.set(key, announcedType);
        node.announced.set(key, announced);
        return true;
      }
      const updateType = UPDATE_TYPES[s.kv.updateType ?? ''] ?? 'SyncPodCreate';
      node.updateType.set(key, updateType);
      const d: Draft = { type: 'worker.update', updateType, coalesced: false, pod, podUID };
      ctx.emit(d);
      const state = updateType !== 'SyncPodKill' ? node.workerTo(ctx, podUID, pod, 'SyncPod') : undefined;
      node.announced.set(key, { update: d, state });
      return true;
    }
    case 'Notifying pod of pending update': {
      if (announced) return true;
      const work = WORK_TYPES[s.kv.workType ?? ''];
      const updateType =
        work === 'SyncPod' || work === undefined
          ? (node.updateType.get(key) ?? 'SyncPodUpdate')
          : 'SyncPodKill';
      ctx.emit({ type: 'worker.update', updateType, coalesced: false, pod, podUID });
      return true;
    }
    case 'Processing pod event': {
      const workType = WORK_TYPES[s.kv.updateType ?? s.kv.workType ?? ''] ?? 'SyncPod';
      const updateType = node.updateType.get(key) ?? 'SyncPodUpdate';
      ctx.emit({ type: 'sync.start', workType, updateType, pod, podUID });
      node.updateType.set(key, 'SyncPodUpdate');
      return true;
    }
    case 'SyncPod enter':
    case 'SyncTerminatingPod enter':
    case 'SyncTerminatedPod enter': {
      const workType = msg.slice(0, -' enter'.length) as
        | 'SyncPod'
        | 'SyncTerminatingPod'
        | 'SyncTerminatedPod';
      node.syncEnter.set(`${key}/${workType}`, ctx.time);
      if (workType === 'SyncTerminatingPod') node.workerTo(ctx, podUID, pod, 'TerminatingPod');
      if (workType === 'SyncTerminatedPod') node.workerTo(ctx, podUID, pod, 'TerminatedPod');
      return true;
    }
    case 'SyncPod exit':
    case 'SyncTerminatingPod exit':
    case 'SyncTerminatedPod exit': {
      const fn = msg.slice(0, -' exit'.length);
      const entered = node.syncEnter.get(`${key}/${fn}`);
      node.syncEnter.delete(`${key}/${fn}`);
      const workType: WorkType =
        fn === 'SyncPod' ? 'SyncPod' : fn === 'SyncTerminatingPod' ? 'TerminatingPod' : 'TerminatedPod';
      const durationMs = entered !== undefined ? Math.max(0, ctx.time - entered) : 0;
      const d = { type: 'sync.result' as const, workType, actions: [], durationMs, pod, podUID };
      ctx.emit(s.kv.isTerminal !== undefined ? { ...d, isTerminal: s.kv.isTerminal === 'true' } : d);
      return true;
    }
    case 'Pod worker has observed request to terminate':
    case 'Pod indicated lifecycle completed naturally and should now terminate':
    // SyncKnownPods on an orphan still running (v1.27+): termination begins without an UpdatePod call
    case 'Pod is orphaned and still running, began terminating':
      node.workerTo(ctx, podUID, pod, 'TerminatingPod');
      return true;
    case 'Pod terminated all containers successfully':
      node.workerTo(ctx, podUID, pod, 'TerminatedPod');
      return true;
    // an orphan's worker (a runtime pod, no spec) is terminated and finished at once, then dropped
    case 'Pod terminated all orphaned containers successfully and worker can now stop':
      node.workerTo(ctx, podUID, pod, 'Finished');
      return true;
    case 'Pod is complete and the worker can now stop':
    // a pod killed before its worker ever started it (v1.23-v1.26; "Pod cannot start ever" from v1.27)
    case 'Pod never started and the worker can now stop':
    case 'Pod cannot start ever':
      node.workerTo(ctx, podUID, pod, 'Finished');
      return true;
    case 'Pod has been terminated and is no longer known to the kubelet, remove all history':
    case 'Pod has been terminated but another pod with the same UID was created, remove history to allow restart':
      node.workerTo(ctx, podUID, pod, 'Forgotten');
      return true;
    default:
      return QUIET.has(msg);
  }
}
