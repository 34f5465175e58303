/**
 * status/status_manager.go's successful status writes, which carry the status the kubelet sent:
 *   Status for pod "a_ns(uid)" updated successfully: (3, {Phase:Running Conditions:[…] Message: Reason: …})  (glog)
 *   "Status for pod updated successfully" pod="ns/a" statusVersion=3 status={"phase":"Running",…}       (structured)
 * The glog form prints a Go struct: only phase, reason and message are read from it. At -v=4 (v1.27+)
 * kubelet_pods.go also says which phase it computed, `"Got phase for pod" pod=… oldPhase="Pending" phase="Running"`:
 * a change of phase is a status update with that phase.
 */
import type { PodPhase, PodStatus } from '../../api/v1.ts';
import { fromFullName, fromRef } from '../pods.ts';
import type { Ctx, Msg } from '../state.ts';

const PHASES = new Set<PodPhase>(['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown']);
const OLD = /^Status for pod "([^"]*)" updated successfully: \(\d+, \{Phase:(\w+)/;

export function status(m: Msg, ctx: Ctx): boolean {
  const s = m.s;
  if (s) {
    if (s.msg === 'Got phase for pod') {
      const phase = s.kv.phase as PodPhase;
      if (!PHASES.has(phase)) return false;
      if (s.kv.oldPhase !== phase)
        ctx.emit({ type: 'status.update', status: { phase }, pod: fromRef(s.kv.pod), podUID: s.kv.podUID });
      return true;
    }
    if (s.msg !== 'Status for pod updated successfully') return false;
    let st: PodStatus | undefined;
    try {
      st = JSON.parse(s.kv.status ?? '') as PodStatus;
    } catch {
      return false;
    }
    if (typeof st !== 'object' || st === null || !PHASES.has(st.phase)) return false;
    ctx.emit({ type: 'status.update', status: st, pod: fromRef(s.kv.pod), podUID: s.kv.podUID });
    return true;
  }
  if (!m.text.startsWith('Status for pod')) return false;
  const r = OLD.exec(m.text);
  if (!r || !PHASES.has(r[2] as PodPhase)) return false;
  const p = fromFullName(r[1] as string);
  const st: PodStatus = { phase: r[2] as PodPhase };
  const reason = / Reason:(\w+)/.exec(m.text);
  if (reason) st.reason = reason[1] as string;
  ctx.emit({ type: 'status.update', status: st, pod: p?.pod, podUID: p?.uid });
  return true;
}
