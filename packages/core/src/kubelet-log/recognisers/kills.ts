/**
 * Kills, sandbox decisions and orphan cleanup:
 *   Killing container "docker://cid" with 30 second grace period              (kuberuntime_container.go, glog)
 *   "Killing container with a grace period" pod=… podUID=… containerName=… containerID=… gracePeriod=30
 *   "Killing container with a grace period override" … gracePeriod=2
 *   Killing unwanted pod "a"      "Killing unwanted pod" podName="a"            (kubelet_pods.go)
 *   No sandbox for pod "a_ns(uid)" can be found. Need to start a new one       (kuberuntime_manager.go)
 *   "No sandbox for pod can be found. Need to start a new one" pod="ns/a"       (also "No ready sandbox …")
 *   Orphaned pod "uid" found, removing    "Cleaned up orphaned pod volumes dir" podUID=…  (kubelet_volumes.go)
 * Kills become runtime.call StopContainer (grace period kept), an unwanted pod a SyncPodKill update, a missing
 * sandbox the RunPodSandbox call it leads to, an orphan cleanup the pod's last worker state (Forgotten).
 */
import { fromFullName, fromRef } from '../pods.ts';
import type { Ctx, Draft, Msg } from '../state.ts';

const OLD_KILL =
  /^Killing container "(?:[\w-]+:\/\/)?([^"]*)" with (?:(\d+) second grace period|a grace period override of (\d+) seconds?)/;
const OLD_SANDBOX = /^No (?:ready )?sandbox for pod "([^"]*)" can be found/;
const OLD_UNWANTED = /^Killing unwanted pod "([^"]*)"/;
const OLD_ORPHAN = /^Orphaned pod "([^"]*)" found, removing/;

function stop(ctx: Ctx, d: Partial<Extract<Draft, { type: 'runtime.call' }>>): void {
  ctx.emit({ type: 'runtime.call', method: 'StopContainer', durationMs: 0, ...d });
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
    if (
      s.msg === 'Killing container with a grace period' ||
      s.msg === 'Killing container with a grace period override'
    ) {
      const grace = Number(kv.gracePeriod);
      stop(ctx, {
        pod: fromRef(kv.pod),
        podUID: kv.podUID,
        container: kv.containerName,
        ...(Number.isFinite(grace) ? { gracePeriodS: grace } : {}),
        ...(s.msg.endsWith('override') ? { override: true } : {}),
      });
      return true;
    }
    if (s.msg === 'Killing unwanted pod') {
      return unwanted(ctx, kv.podName ?? '');
    }
    if (
      s.msg.startsWith('No sandbox for pod can be found') ||
      s.msg.startsWith('No ready sandbox for pod can be found')
    ) {
      const pod = fromRef(kv.pod);
      if (!pod) return false;
      ctx.emit({ type: 'runtime.call', method: 'RunPodSandbox', durationMs: 0, pod });
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
    const r = OLD_KILL.exec(t);
    if (!r) return false;
    const grace = Number(r[2] ?? r[3]);
    const podUID = ctx.node.podOfContainer(r[1] as string);
    stop(ctx, { ...(r[3] ? { override: true } : {}), gracePeriodS: grace, ...(podUID ? { podUID } : {}) });
    return true;
  }
  let r = OLD_UNWANTED.exec(t);
  if (r) {
    return unwanted(ctx, r[1] as string);
  }
  r = OLD_SANDBOX.exec(t);
  if (r) {
    const p = fromFullName(r[1] as string);
    if (!p) return false;
    ctx.emit({ type: 'runtime.call', method: 'RunPodSandbox', durationMs: 0, pod: p.pod, podUID: p.uid });
    return true;
  }
  r = OLD_ORPHAN.exec(t);
  if (r) {
    ctx.node.workerTo(ctx, r[1], undefined, 'Forgotten');
    return true;
  }
  return false;
}
