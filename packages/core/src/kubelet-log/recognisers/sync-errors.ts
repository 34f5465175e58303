/**
 * pod_workers.go's sync error and the SyncResults inside it (kuberuntime's PodSyncResult.Error):
 *   Error syncing pod <uid> ("name_ns(uid)"), skipping: <err>        (glog, v1.6–v1.19)
 *   Error syncing pod <uid>, skipping: <err>                          (glog, v1.5)
 *   "Error syncing pod, skipping" err="<err>" pod="ns/name" podUID=…  (structured)
 * <err> is one SyncResult, `failed to "StartContainer" for "app" with CrashLoopBackOff: "back-off 40s
 * restarting failed container=app pod=…"`, or several in brackets. Back-off results also open back-off windows
 * (an image window at each failed pull, ErrImagePull, and at ImagePullBackOff when none is open),
 * as does kuberuntime_manager.go's own line for the same back-off (-v=3), which comes just before:
 *   "Back-off restarting failed container" err="back-off 20s restarting failed container=app pod=web-0_shop(uid)"
 *   back-off 20s restarting failed container=app pod=web-0_shop(uid)               (glog; "Back-off 10s …" in v1.15)
 * and the pod killer's failure (kubelet_pods.go), its KillContainerError or KillPodSandboxError:
 *   "Failed killing the pod" err="failed to \"KillContainer\" for \"app\" with KillContainerError: …" podName="web-0"
 *   Failed killing the pod "web-0": failed to "KillContainer" for "app" with KillContainerError: …      (glog)
 */

import { SYNC_ACTION_NAMES } from '../../events/sync-action-names.ts';
import type { SyncAction, SyncActionName } from '../../events/trace.ts';
import { readQuoted } from '../kv.ts';
import { fromFullName, fromRef } from '../pods.ts';
import { type Ctx, goDurationS, type Msg } from '../state.ts';

const ACTIONS = new Set<SyncActionName>(SYNC_ACTION_NAMES);
const RESULT = /failed to "(\w+)" for "((?:[^"\\]|\\.)*)" with (\w+): /g;
const OLD = /^Error syncing pod ([\w-]+)(?: \("([^"]*)"\))?, skipping: /;
const CRASH = /[Bb]ack-off (\S+) restarting failed container=(\S+)/;
const CRASH_POD = /[Bb]ack-off (\S+) restarting failed container=(\S+) pod=(\S+)/;
const OLD_KILL_FAILED = /^Failed killing the pod "([^"]*)": /;
const IMAGE = /Back-off pulling image "((?:[^"\\]|\\.)*)"/;

/** The SyncResults in an error text. */
function parseSyncResults(err: string): SyncAction[] {
  const out: SyncAction[] = [];
  RESULT.lastIndex = 0;
  for (let r = RESULT.exec(err); r; r = RESULT.exec(err)) {
    const action = r[1] as SyncActionName;
    if (!ACTIONS.has(action)) continue;
    const target = readQuoted(`"${r[2]}"`, 0).value;
    const at = RESULT.lastIndex;
    const message = err[at] === '"' ? readQuoted(err, at).value : err.slice(at);
    out.push({ action, target, error: r[3] as string, message });
  }
  return out;
}

function emitResult(ctx: Ctx, err: string, pod: string | undefined, podUID: string | undefined): void {
  const actions = parseSyncResults(err);
  // the attempt failed: the next report of a missing sandbox is a new one (kills.ts)
  ctx.node.sandboxAsked.delete(pod ?? ctx.node.pods.podOf(podUID ?? '') ?? '');
  const workType = ctx.node.workTypeOf(podUID, pod);
  ctx.emit({ type: 'sync.result', workType, actions, durationMs: 0, error: err, pod, podUID });
  for (const a of actions) {
    if (a.error === 'CrashLoopBackOff') {
      const c = CRASH.exec(a.message ?? '');
      ctx.node.backoff(ctx, { pod, podUID }, 'container', c?.[2] ?? a.target, goDurationS(c?.[1] ?? ''));
    } else if (a.error === 'ErrImagePull') {
      // a pull just failed: the kubelet's image back-off steps now, so a new window opens with it
      ctx.node.backoff(ctx, { pod, podUID }, 'image', a.target, undefined, undefined, true);
    } else if (a.error === 'ImagePullBackOff') {
      const i = IMAGE.exec(a.message ?? '');
      const image = i ? readQuoted(`"${i[1]}"`, 0).value : undefined;
      ctx.node.backoff(ctx, { pod, podUID }, 'image', a.target, undefined, image);
    }
  }
}

/** kuberuntime_manager.go's own back-off line (-v=3): its text names the delay, the container and the pod */
function crashBackoff(ctx: Ctx, text: string): boolean {
  const c = CRASH_POD.exec(text);
  const p = c ? fromFullName(c[3] as string) : undefined;
  if (!c || !p) return false;
  ctx.node.backoff(ctx, { pod: p.pod, podUID: p.uid }, 'container', c[2] as string, goDurationS(c[1] ?? ''));
  return true;
}

/**
 * kubelet_pods.go's pod killer (an unwanted pod, "Killing unwanted pod") failed: its KillPodResult's error, the
 * KillContainer and KillPodSandbox results in it, as a SyncTerminatingPod's result. The line names the pod by
 * its name alone: the one pod of that name an earlier line named, else it is kept raw.
 */
function killFailed(ctx: Ctx, name: string, err: string): boolean {
  const p = ctx.node.pods.byBareName(name);
  if (!p) return false;
  ctx.emit({
    type: 'sync.result',
    workType: 'TerminatingPod',
    actions: parseSyncResults(err),
    durationMs: 0,
    error: err,
    pod: p.pod,
    podUID: p.uid,
  });
  return true;
}

export function syncErrors(m: Msg, ctx: Ctx): boolean {
  const s = m.s;
  if (s) {
    if (s.msg === 'Back-off restarting failed container') return crashBackoff(ctx, s.kv.err ?? '');
    if (s.msg === 'Failed killing the pod') return killFailed(ctx, s.kv.podName ?? '', s.kv.err ?? '');
    if (s.msg !== 'Error syncing pod, skipping') return false;
    emitResult(ctx, s.kv.err ?? '', fromRef(s.kv.pod), s.kv.podUID);
    return true;
  }
  const c0 = m.text.charCodeAt(0);
  // the glog form of the same line, the error's text alone: "Back-off 10s restarting failed container=…" (v1.15),
  // "back-off 20s restarting …" (v1.17-v1.19)
  if ((c0 === 66 || c0 === 98) && /^[Bb]ack-off /.test(m.text)) return crashBackoff(ctx, m.text);
  if (c0 === 70) {
    const k = OLD_KILL_FAILED.exec(m.text);
    return k !== null && killFailed(ctx, k[1] as string, m.text.slice(k[0].length));
  }
  if (!m.text.startsWith('Error syncing pod')) return false;
  const r = OLD.exec(m.text);
  if (!r) return false;
  const name = r[2] ? fromFullName(r[2]) : undefined;
  emitResult(ctx, m.text.slice(r[0].length), name?.pod, r[1]);
  return true;
}
