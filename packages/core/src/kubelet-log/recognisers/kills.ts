/**
 * Kills, sandbox decisions and orphan cleanup:
 *   Killing container "docker://cid", but using 2 second grace period override (glog, -v=3, then the line below)
 *   Killing container "docker://cid" with 30 second grace period              (kuberuntime_container.go, glog)
 *   "Killing container with a grace period" pod=… podUID=… containerName=… containerID=… gracePeriod=30
 *   "Killing container with a grace period override" … gracePeriod=2
 *   Killing unwanted pod "a"      "Killing unwanted pod" podName="a"            (kubelet_pods.go)
 *   No sandbox for pod "a_ns(uid)" can be found. Need to start a new one       (kuberuntime_manager.go)
 *   "No sandbox for pod can be found. Need to start a new one" pod="ns/a"       (also "No ready sandbox …",
 *   "Sandbox for pod has changed. …", "Sandbox for pod has no IP address. …", "Multiple sandboxes are ready for
 *   Pod. Need to reconcile them" (util.go); glog: Sandbox for pod "a_ns(uid)" …)
 *   Orphaned pod "uid" found, removing    "Cleaned up orphaned pod volumes dir" podUID=…  (kubelet_volumes.go)
 * Kills become runtime.call StopContainer (grace period kept; the override line before a kill marks it), an
 * unwanted pod a SyncPodKill update, a missing sandbox the RunPodSandbox call it leads to (see sandbox()), an
 * orphan cleanup the pod's last worker state (Forgotten).
 */
import { fromFullName, fromRef } from '../pods.ts';
import type { Ctx, Draft, Msg } from '../state.ts';

/**
 * How long after a missing sandbox was read a second report, with no sync error or PLEG event of the pod
 * between, is the same sync's: a sync writes its two at most seconds apart (volumes are mounted between them),
 * while a pod synced again without either waits for the periodic resync (a minute).
 */
const SAME_SYNC_MS = 10_000;

const OLD_KILL = /^Killing container "(?:[\w-]+:\/\/)?([^"]*)" with (\d+) second grace period/;
/** the override line killContainer writes (-v=3) just before its kill line for the same container */
const OLD_OVERRIDE =
  /^Killing container "(?:[\w-]+:\/\/)?([^"]*)", but using (\d+) second grace period override/;
const OLD_SANDBOX =
  /^(?:No (?:ready )?sandbox for pod "([^"]*)" can be found|Sandbox for pod "([^"]*)" has (?:changed|no IP address)\. Need to start a new one)/;
const OLD_UNWANTED = /^Killing unwanted pod "([^"]*)"/;
const OLD_ORPHAN = /^Orphaned pod "([^"]*)" found, removing/;

function stop(ctx: Ctx, d: Partial<Extract<Draft, { type: 'runtime.call' }>>): void {
  ctx.emit({ type: 'runtime.call', method: 'StopContainer', durationMs: 0, ...d });
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

/** false when the pod cannot be told (a bare name no earlier line gave a namespace for): kept raw */
function unwanted(ctx: Ctx, name: string): boolean {
  const p = name.includes('_') ? fromFullName(name) : ctx.node.pods.byBareName(name);
  if (!p) return false;
  ctx.emit({ type: 'worker.update', updateType: 'SyncPodKill', coalesced: false, pod: p.pod, podUID: p.uid });
  return true;
}

export function kills(m: Msg, ctx: Ctx): boolean {
  const s = m.s;
  if (s) {
    const kv = s.kv;
    const overridden = s.msg === 'Killing container with a grace period override';
    if (overridden || s.msg === 'Killing container with a grace period') {
      const which = kv.containerID ?? `${kv.podUID ?? kv.pod}/${kv.containerName}`;
      // the kill's own line follows the override's with the grace period used: one stop, marked overridden
      if (overridden) {
        ctx.node.killOverride.add(which);
        return true;
      }
      const grace = Number(kv.gracePeriod);
      const override = ctx.node.killOverride.delete(which);
      stop(ctx, {
        pod: fromRef(kv.pod),
        podUID: kv.podUID,
        container: kv.containerName,
        ...(Number.isFinite(grace) ? { gracePeriodS: grace } : {}),
        ...(override ? { override: true } : {}),
      });
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
  if (t.startsWith('Killing container')) {
    const o = OLD_OVERRIDE.exec(t);
    if (o) {
      ctx.node.killOverride.add(o[1] as string);
      return true;
    }
    const r = OLD_KILL.exec(t);
    if (!r) return false;
    const grace = Number(r[2]);
    const podUID = ctx.node.podOfContainer(r[1] as string);
    const override = ctx.node.killOverride.delete(r[1] as string);
    stop(ctx, {
      ...(override ? { override: true } : {}),
      gracePeriodS: grace,
      ...(podUID ? { podUID } : {}),
    });
    return true;
  }
  let r = OLD_UNWANTED.exec(t);
  if (r) {
    return unwanted(ctx, r[1] as string);
  }
  r = OLD_SANDBOX.exec(t);
  if (r) {
    const p = fromFullName((r[1] ?? r[2]) as string);
    if (!p) return false;
    sandbox(ctx, p.pod, p.uid);
    return true;
  }
  r = OLD_ORPHAN.exec(t);
  if (r) {
    ctx.node.workerTo(ctx, r[1], undefined, 'Forgotten');
    return true;
  }
  return false;
}
