/**
 * kubelet.go's syncLoopIteration and syncLoop messages, glog style (≤ v1.19) and structured (v1.20+):
 *   SyncLoop (ADD, "api"): "a_ns(uid), b_ns(uid)"        "SyncLoop ADD" source="api" pods=["ns/a"]
 *   SyncLoop (PLEG): "a_ns(uid)", event: &pleg.PodLifecycleEvent{ID:"uid", Type:"ContainerDied", Data:"cid"}
 *                                                         "SyncLoop (PLEG): event for pod" pod="ns/a" event={…}
 *                                                           (before klog v2.100: event=&{ID:uid Type:… Data:cid})
 *   SyncLoop (SYNC): 2 pods; "a_ns(uid)", "b_ns(uid)"     "SyncLoop (SYNC) pods" total=2 pods=[…]
 *   SyncLoop (housekeeping)                               "SyncLoop (housekeeping) end" duration="3ms"
 *                                                           (no duration before v1.27: the time since the start line)
 *   SyncLoop (container unhealthy): "a_ns(uid)"           "SyncLoop (probe)" probe="liveness" status="unhealthy" pod=…
 *   skipping pod synchronization - [container runtime is down]   "Skipping pod synchronization" err=…
 */
import type { ConfigOp, PlegEventType, ProbeResult, ProbeType } from '../../events/trace.ts';
import { jsonText, readQuoted } from '../kv.ts';
import { fromFullName, fromFullNameList, fromRef, fromRefList } from '../pods.ts';
import { type Ctx, goDurationS, type Msg, PROBE_TYPES, probeResultOf } from '../state.ts';

const OPS: Record<string, ConfigOp> = {
  ADD: 'ADD',
  UPDATE: 'UPDATE',
  DELETE: 'DELETE',
  REMOVE: 'REMOVE',
  RECONCILE: 'RECONCILE',
  // a pod restored from the checkpoint at start is an ADD for the loop
  RESTORE: 'ADD',
};
const PLEG_TYPES = new Set<PlegEventType>([
  'ContainerStarted',
  'ContainerDied',
  'ContainerRemoved',
  'ContainerChanged',
  'PodSync',
  'ConditionMet',
]);

const OLD_CONFIG = /^SyncLoop \((ADD|UPDATE|DELETE|REMOVE|RECONCILE|RESTORE), "([^"]*)"\): /;
const OLD_PLEG =
  /^SyncLoop \(PLEG\): "([^"]*)", event: &pleg\.PodLifecycleEvent\{ID:"([^"]*)", Type:"(\w+)", Data:(.*)\}/;
const OLD_SYNC = /^SyncLoop \(SYNC\): (\d+) pods?/;

function config(ctx: Ctx, op: ConfigOp, source: string, pods: { pod: string; uid?: string }[]): void {
  const gone = ctx.node.gone;
  for (const p of pods) {
    ctx.emit({ type: 'config.update', op, source, pod: p.pod, podUID: p.uid });
    // a pod deleted (graceful) or removed gets no new sandbox (kills.ts)
    const uid = p.uid ?? ctx.node.pods.uidOf(p.pod);
    for (const k of uid === undefined ? [p.pod] : [p.pod, uid]) {
      if (op === 'DELETE' || op === 'REMOVE') gone.add(k);
      else if (op === 'ADD') gone.delete(k);
    }
  }
}

/** Go's %+v of a *pleg.PodLifecycleEvent (v1.20-v1.26): `&{ID:uid Type:ContainerDied Data:cid}` */
const GO_PLEG_EVENT = /^&?\{ID:(\S*) Type:(\w+) Data:(.*)\}$/;

/** The `event=` value of a structured PLEG line: JSON (klog v2.100 on), or the Go form before it. */
function plegEventOf(v: string): { ID?: string; Type?: string; Data?: unknown } | undefined {
  const go = GO_PLEG_EVENT.exec(v);
  if (go) return { ID: go[1], Type: go[2], Data: go[3] === '<nil>' ? '' : go[3] };
  try {
    return JSON.parse(v || '{}') as { ID?: string; Type?: string; Data?: unknown };
  } catch {
    return undefined;
  }
}

/**
 * What a "SyncLoop (probe)" line's status says: the loop writes "ready" for a readiness success and "" (before
 * v1.32) or "not ready" otherwise, "started" or "unhealthy" for startup, and logs liveness only as "unhealthy".
 */
function loopProbeResult(probe: ProbeType, status: string): ProbeResult {
  if (probe === 'Readiness') return status === 'ready' ? 'Success' : 'Failure';
  if (probe === 'Startup') return status === 'started' ? 'Success' : 'Failure';
  return probeResultOf(status || 'unhealthy');
}

function plegData(data: string): string {
  const d = data.trim();
  if (d.startsWith('"')) return readQuoted(d, 0).value;
  return d.replace(/^interface \{\}\(/, '').replace(/\)$/, '');
}

/** glog's "skipping pod synchronization - err" (lower case before v1.20; the structured message is capitalised) */
function skipping(t: string): boolean {
  return t.startsWith('kipping pod synchronization', 1) && (t[0] === 's' || t[0] === 'S');
}

/** loop lines of updates the loop drops: read, no event */
const QUIET = new Set([
  'SyncLoop (PLEG): pod does not exist, ignore irrelevant event',
  'SyncLoop (probe): ignore irrelevant update',
  // v1.31+, with the alpha gate ResourceHealthStatus
  'SyncLoop (containermanager): pod does not exist, ignore devices updates',
]);

export function syncLoop(m: Msg, ctx: Ctx): boolean {
  const s = m.s;
  if (s) {
    const msg = s.msg;
    if (!msg.startsWith('SyncLoop') && !msg.startsWith('Skipping pod synchronization')) return false;
    const op = /^SyncLoop (ADD|UPDATE|DELETE|REMOVE|RECONCILE|RESTORE)$/.exec(msg);
    if (op) {
      config(ctx, OPS[op[1] as string] as ConfigOp, s.kv.source ?? '', fromRefList(s.kv.pods));
      return true;
    }
    if (msg === 'SyncLoop (PLEG): event for pod') {
      const pod = fromRef(s.kv.pod);
      const ev = plegEventOf(s.kv.event ?? '');
      if (!ev) return false;
      if (!ev.ID || !PLEG_TYPES.has(ev.Type as PlegEventType)) return false;
      ctx.node.pods.note(pod, ev.ID);
      ctx.node.pleg(
        ctx,
        ev.ID,
        // an event of the whole pod (PodSync, ConditionMet) carries no data: null in JSON
        typeof ev.Data === 'string' ? ev.Data : ev.Data == null ? '' : jsonText(ev.Data),
        ev.Type as PlegEventType,
      );
      return true;
    }
    if (QUIET.has(msg)) return true;
    if (msg === 'SyncLoop (SYNC) pods') {
      const total = Number(s.kv.total ?? fromRefList(s.kv.pods).length);
      ctx.emit({
        type: 'loop.iteration',
        source: 'sync',
        pods: Number.isFinite(total) ? total : 0,
        durationMs: 0,
      });
      return true;
    }
    if (msg === 'SyncLoop (housekeeping)') {
      ctx.node.housekeepingAt = ctx.time;
      ctx.emit({ type: 'loop.iteration', source: 'housekeeping', pods: 0, durationMs: 0 });
      return true;
    }
    if (msg === 'SyncLoop (housekeeping) end') {
      // before v1.27 the end line gives no duration: the time since the start line, written just before it
      const started = ctx.node.housekeepingAt;
      ctx.node.housekeepingAt = undefined;
      const given = goDurationS(s.kv.duration ?? '');
      const ms =
        given !== undefined
          ? given * 1000
          : started !== undefined && ctx.time >= started
            ? ctx.time - started
            : 0;
      ctx.emit({ type: 'housekeeping', durationMs: ms, forgotten: 0, orphansKilled: 0, restarted: 0 });
      return true;
    }
    if (msg === 'SyncLoop (probe)') {
      const probe = PROBE_TYPES[(s.kv.probe ?? '').toLowerCase()];
      const pod = fromRef(s.kv.pod);
      if (!probe || !pod) return false;
      ctx.emit({ type: 'loop.iteration', source: 'probe', pods: 1, durationMs: 0 });
      ctx.emit({
        type: 'probe.result',
        container: '',
        probe,
        result: loopProbeResult(probe, s.kv.status ?? ''),
        pod,
      });
      return true;
    }
    if (msg === 'SyncLoop (container unhealthy)') {
      const pod = fromRef(s.kv.pod);
      if (!pod) return false;
      ctx.emit({ type: 'probe.result', container: '', probe: 'Liveness', result: 'Failure', pod });
      return true;
    }
    if (msg.startsWith('Skipping pod synchronization')) {
      ctx.emit({ type: 'loop.skipped', errors: s.kv.err ? [s.kv.err] : [], backoffMs: 0 });
      return true;
    }
    return msg.startsWith('SyncLoop (housekeeping');
  }
  const t = m.text;
  if (!t.startsWith('SyncLoop') && !skipping(t)) return false;
  let r = OLD_CONFIG.exec(t);
  if (r) {
    const rest = t.slice(r[0].length);
    const list = rest.startsWith('"') ? readQuoted(rest, 0).value : rest;
    config(
      ctx,
      OPS[r[1] as string] as ConfigOp,
      r[2] as string,
      fromFullNameList(list).map((p) => ({ pod: p.pod, uid: p.uid })),
    );
    return true;
  }
  r = OLD_PLEG.exec(t);
  if (r) {
    const name = fromFullName(r[1] as string);
    const uid = r[2] as string;
    if (!PLEG_TYPES.has(r[3] as PlegEventType)) return false;
    ctx.node.pods.note(name?.pod, uid);
    ctx.node.pleg(ctx, uid, plegData(r[4] as string), r[3] as PlegEventType);
    return true;
  }
  if (t.startsWith('SyncLoop (PLEG): ignore irrelevant event')) return true;
  r = OLD_SYNC.exec(t);
  if (r) {
    ctx.emit({ type: 'loop.iteration', source: 'sync', pods: Number(r[1]), durationMs: 0 });
    return true;
  }
  if (t === 'SyncLoop (housekeeping)') {
    ctx.emit({ type: 'loop.iteration', source: 'housekeeping', pods: 0, durationMs: 0 });
    return true;
  }
  if (t.startsWith('SyncLoop (container unhealthy): ignore irrelevant update')) return true;
  if (t.startsWith('SyncLoop (container unhealthy): ')) {
    const rest = t.slice('SyncLoop (container unhealthy): '.length);
    const p = fromFullName(rest.startsWith('"') ? readQuoted(rest, 0).value : rest);
    if (!p) return false;
    ctx.emit({
      type: 'probe.result',
      container: '',
      probe: 'Liveness',
      result: 'Failure',
      pod: p.pod,
      podUID: p.uid,
    });
    return true;
  }
  if (skipping(t)) {
    const err = t.replace(/^[Ss]kipping pod synchronization - /, '');
    ctx.emit({ type: 'loop.skipped', errors: [err], backoffMs: 0 });
    return true;
  }
  return t.startsWith('SyncLoop (housekeeping');
}
