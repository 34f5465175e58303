/**
 * Kills, sandbox decisions and orphan cleanup:
 *   Killing container {"docker" "cid"}, but using 2 second grace period override (glog, -v=3, then the line below;
 *                                                       to v1.9 the line below first)
 *   Killing container "docker://cid" with 30 second grace period              (kuberuntime_container.go, glog;
 *                                                       v1.19 and v1.20: "with a 30 second …", "but using a 2 second …")
 *   "Killing container with a grace period" pod=… podUID=… containerName=… containerID=… gracePeriod=30
 *   "Killing container with a grace period override" … gracePeriod=2   (-v=3, then the line above; v1.21 writes
 *     every kill with this message, an overridden one twice)
 *   Killing unwanted pod "a"      "Killing unwanted pod" podName="a"            (kubelet_pods.go)
 *   No sandbox for pod "a_ns(uid)" can be found. Need to start a new one       (kuberuntime_manager.go)
 *   Stopping PodSandbox for "a_ns(uid)" because all other containers are dead.  "Stopping PodSandbox for pod,
 *     because all other containers are dead" pod=…  (SyncPod, -v=4: the pod's sandbox stopped, StopPodSandbox)
 *   "No sandbox for pod can be found. Need to start a new one" pod="ns/a"       (also "No ready sandbox …",
 *   "Sandbox for pod has changed. …", "Sandbox for pod has no IP address. …", "Multiple sandboxes are ready for
 *   Pod. Need to reconcile them" (util.go); glog: Sandbox for pod "a_ns(uid)" …)
 *   Orphaned pod "uid" found, removing    "Cleaned up orphaned pod volumes dir" podUID=…  (kubelet_volumes.go)
 * Kills become runtime.call StopContainer (grace period kept; the override line before a kill marks it), an
 * unwanted pod a SyncPodKill update, a missing sandbox the RunPodSandbox call it leads to (see sandbox()), an
 * orphan cleanup the pod's last worker state (Forgotten).
 */
import { fromFullName, fromRef, isPodName } from '../pods.ts';
import { type Ctx, type Draft, type Msg, waiting } from '../state.ts';

/**
 * How long after a missing sandbox was read a second report, with no sync error or PLEG event of the pod
 * between, is the same sync's: a sync writes its two at most seconds apart (volumes are mounted between them),
 * while a pod synced again without either waits for the periodic resync (a minute).
 */
const SAME_SYNC_MS = 10_000;

/**
 * How soon after a structured kill's override line the next kill line of the same container is the same kill:
 * killContainer writes the two one after the other.
 */
const SAME_KILL_MS = 1000;

const OLD_KILL = /^Killing container "(?:[\w-]+:\/\/)?([^"]*)" with (?:a )?(\d+) second grace period/;
/**
 * the override line killContainer writes (-v=3) just before its kill line for the same container; its %q of the
 * container ID (a value whose String method wants a pointer) prints the ID's two fields, `{"docker" "cid"}`
 */
const OLD_OVERRIDE =
  /^Killing container (?:"(?:[\w-]+:\/\/)?([^"]*)"|\{"[\w-]*" "([^"]*)"\}), but using (?:a )?(\d+) second grace period override/;
/**
 * (v1.15 writes two blanks before "Need"; several ready sandboxes are "More than 1 …" in v1.7-v1.15, "Multiple …"
 * after; dockertools, v1.5-v1.6, restarts the "pod infra container")
 */
const OLD_SANDBOX =
  /^(?:No (?:ready )?sandbox for pod "([^"]*)" can be found|Sandbox for pod "([^"]*)" has (?:changed|no IP address)\.\s+Need to start a new one|Multiple sandboxes are ready for Pod "([^"]*)"\. Need to reconcile them|More than 1 sandboxes for pod "([^"]*)" are ready\. Need to reconcile them|Need to restart pod infra container for "([^"]*)" because it is (?:not found|changed))/;
const OLD_UNWANTED = /^Killing unwanted pod "([^"]*)"/;
/** SyncPod kills a pod whose containers are all dead and needs no new sandbox (-v=4): its sandbox is stopped */
const OLD_DEAD = /^Stopping PodSandbox for "([^"]*)" because all other containers are dead/;
const OLD_ORPHAN = /^Orphaned pod "([^"]*)" found, removing/;

type StopDraft = Extract<Draft, { type: 'runtime.call' }>;

/** a StopContainer call with these fields (kept, so a later line of the same kill may complete it) */
function stopOf(d: Omit<StopDraft, 'type' | 'method' | 'durationMs'>): StopDraft {
  return { type: 'runtime.call', method: 'StopContainer', durationMs: 0, ...d };
}

/**
 * A missing sandbox read as the RunPodSandbox it leads to, unless it cannot lead to one. From v1.29 a sync
 * writes the line twice (its status asks, for PodReadyToStartContainers, then its plan), and the status of a pod
 * that is done writes it too: so a pod deleted or terminating gets none, and a report after one already read,
 * with no sync error and no PLEG event of the pod between them, soon after (SAME_SYNC_MS), is the same attempt.
 */
function sandbox(ctx: Ctx, pod: string, podUID: string | undefined): void {
  const node = ctx.node;
  const uid = podUID ?? node.pods.uidOf(pod);
  const worker = (uid !== undefined ? node.worker.get(uid) : undefined) ?? node.worker.get(pod);
  // (a worker that finished, or was forgotten, starts again when the pod is added again)
  if (worker === 'TerminatingPod' || worker === 'TerminatedPod') return;
  if (node.gone.has(pod) || (uid !== undefined && node.gone.has(uid))) return;
  const asked = node.sandboxAsked.get(pod);
  node.sandboxAsked.set(pod, ctx.time);
  if (asked !== undefined && ctx.time >= asked && ctx.time - asked < SAME_SYNC_MS) return;
  ctx.emit({ type: 'runtime.call', method: 'RunPodSandbox', durationMs: 0, pod, podUID });
}

/**
 * The pod killer's kill of an unwanted pod. A bare name no earlier line gave a namespace for is looked up when
 * the event leaves the reorder window (a line just after, the kill of its containers, names it whole); a name
 * cut off is none (kept raw).
 */
function unwanted(ctx: Ctx, name: string): boolean {
  const p = name.includes('_') ? fromFullName(name) : ctx.node.pods.byBareName(name);
  if (p) {
    ctx.emit({
      type: 'worker.update',
      updateType: 'SyncPodKill',
      coalesced: false,
      pod: p.pod,
      podUID: p.uid,
    });
    return true;
  }
  if (name.includes('_') || !isPodName(name)) return false;
  ctx.emit({ type: 'worker.update', updateType: 'SyncPodKill', coalesced: false, podName: name });
  return true;
}

/**
 * A glog kill line, or its override line. The kuberuntime names the container by its ID; dockertools (v1.5-v1.6)
 * by `"id container ns/pod"`. To v1.9 (at least) the override line comes after the kill line, once the preStop
 * hook has run (at most the grace period), with the period then used: it corrects that StopContainer while it
 * waits in the reorder window; later kubelets write it just before the kill line.
 */
function glogKill(ctx: Ctx, t: string): boolean {
  const node = ctx.node;
  const o = OLD_OVERRIDE.exec(t);
  if (o) {
    const id = ((o[1] ?? o[2]) as string).split(' ')[0] as string;
    const read = node.killRead.get(id);
    node.killRead.delete(id);
    const grace = read?.stop.gracePeriodS ?? 0;
    if (read && ctx.time >= read.at && ctx.time - read.at <= (grace + 2) * 1000) {
      if (waiting(read.stop)) {
        read.stop.override = true;
        read.stop.gracePeriodS = Number(o[3]);
      }
    } else node.killOverride.add(id);
    return true;
  }
  const r = OLD_KILL.exec(t);
  if (!r) return false;
  const [id, container, pod] = (r[1] as string).split(' ') as [string, string?, string?];
  const podUID = node.podOfContainer(id);
  const override = node.killOverride.delete(id);
  const d = stopOf({
    ...(override ? { override: true } : {}),
    gracePeriodS: Number(r[2]),
    ...(podUID ? { podUID } : {}),
    ...(container ? { container } : {}),
    ...(pod?.includes('/') ? { pod } : {}),
  });
  ctx.emit(d);
  if (!override) {
    if (node.killRead.size > 10_000) node.killRead.clear();
    node.killRead.set(id, { stop: d, at: ctx.time });
  }
  return true;
}

export function kills(m: Msg, ctx: Ctx): boolean {
  const s = m.s;
  if (s) {
    const kv = s.kv;
    const overridden = s.msg === 'Killing container with a grace period override';
    if (overridden || s.msg === 'Killing container with a grace period') {
      const which = kv.containerID ?? `${kv.podUID ?? kv.pod}/${kv.containerName}`;
      // a second line of the same kill: the override line (-v=3) was its first, so the kill is overridden
      const first = ctx.node.killRead.get(which);
      ctx.node.killRead.delete(which);
      if (first && waiting(first.stop) && ctx.time >= first.at && ctx.time - first.at <= SAME_KILL_MS) {
        first.stop.override = true;
        return true;
      }
      const grace = Number(kv.gracePeriod);
      const d = stopOf({
        pod: fromRef(kv.pod),
        podUID: kv.podUID,
        container: kv.containerName,
        ...(Number.isFinite(grace) ? { gracePeriodS: grace } : {}),
      });
      ctx.emit(d);
      // the override line is a kill's first line (v1.22+, -v=3) or its only one (v1.21 words every kill so)
      if (overridden) {
        if (ctx.node.killRead.size > 10_000) ctx.node.killRead.clear();
        ctx.node.killRead.set(which, { stop: d, at: ctx.time });
      }
      return true;
    }
    if (s.msg === 'Stopping PodSandbox for pod, because all other containers are dead') {
      const pod = fromRef(kv.pod);
      if (!pod) return false;
      ctx.emit({ type: 'runtime.call', method: 'StopPodSandbox', durationMs: 0, pod, podUID: kv.podUID });
      return true;
    }
    if (s.msg === 'Killing unwanted pod') {
      return unwanted(ctx, kv.podName ?? '');
    }
    if (
      s.msg.startsWith('No sandbox for pod can be found') ||
      s.msg.startsWith('No ready sandbox for pod can be found') ||
      s.msg === 'Multiple sandboxes are ready for Pod. Need to reconcile them' ||
      (s.msg.startsWith('Sandbox for pod has ') && s.msg.endsWith('Need to start a new one'))
    ) {
      const pod = fromRef(kv.pod);
      if (!pod) return false;
      sandbox(ctx, pod, kv.podUID);
      return true;
    }
    if (s.msg === 'Cleaned up orphaned pod volumes dir' || s.msg === 'Orphaned pod found, removing') {
      const uid = kv.podUID;
      if (!uid) return false;
      ctx.node.workerTo(ctx, uid, undefined, 'Forgotten');
      return true;
    }
    return false;
  }
  const t = m.text;
  if (t.startsWith('Killing container')) return glogKill(ctx, t);
  let r = OLD_UNWANTED.exec(t);
  if (r) {
    return unwanted(ctx, r[1] as string);
  }
  r = OLD_SANDBOX.exec(t);
  if (r) {
    const p = fromFullName((r[1] ?? r[2] ?? r[3] ?? r[4] ?? r[5]) as string);
    if (!p) return false;
    sandbox(ctx, p.pod, p.uid);
    return true;
  }
  r = OLD_DEAD.exec(t);
  if (r) {
    const p = fromFullName(r[1] as string);
    if (!p) return false;
    ctx.emit({ type: 'runtime.call', method: 'StopPodSandbox', durationMs: 0, pod: p.pod, podUID: p.uid });
    return true;
  }
  r = OLD_ORPHAN.exec(t);
  if (r) {
    ctx.node.workerTo(ctx, r[1], undefined, 'Forgotten');
    return true;
  }
  return false;
}
