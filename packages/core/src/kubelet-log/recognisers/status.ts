/**
 * status/status_manager.go's successful status writes, which carry the status the kubelet sent:
 *   Status for pod "a_ns(uid)" updated successfully: (3, {Phase:Running Conditions:[…] Message: Reason: …})  (glog;
 *     `: {status:{Phase:Running …} version:3 podName:a podNamespace:ns}` to v1.6.0)
 *   "Status for pod updated successfully" pod="ns/a" statusVersion=3 status={"phase":"Running",…}       (structured)
 * The glog form, and the structured one before klog v2.100 (`status={Phase:Running …}`), print a Go struct: only
 * the phase and the pod's reason are read from it. At -v=4 (v1.27+)
 * kubelet_pods.go also says which phase it computed, `"Got phase for pod" pod=… oldPhase="Pending" phase="Running"`:
 * a change of phase is a status update with that phase.
 */
import type { PodPhase, PodStatus } from '../../api/v1.ts';
import { fromFullName, fromRef } from '../pods.ts';
import type { Ctx, Msg } from '../state.ts';

const PHASES = new Set<PodPhase>(['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown']);
/** (v1.5-v1.6.0 print the manager's whole record: `updated successfully: {status:{Phase:Running …} version:3 …}`) */
const OLD = /^Status for pod "([^"]*)" updated successfully: (?:\(\d+, |\{status:)\{Phase:(\w+)/;

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
    const v = s.kv.status ?? '';
    let st: PodStatus | undefined;
    if (v.startsWith('{Phase:')) st = goStatus(v);
    else {
      try {
        st = JSON.parse(v) as PodStatus;
      } catch {
        return false;
      }
    }
    if (typeof st !== 'object' || st === null || !PHASES.has(st.phase)) return false;
    ctx.emit({ type: 'status.update', status: st, pod: fromRef(s.kv.pod), podUID: s.kv.podUID });
    return true;
  }
  if (!m.text.startsWith('Status for pod')) return false;
  const r = OLD.exec(m.text);
  const st = r ? goStatus(m.text.slice(m.text.indexOf('{Phase:'))) : undefined;
  if (!r || !st) return false;
  const p = fromFullName(r[1] as string);
  ctx.emit({ type: 'status.update', status: st, pod: p?.pod, podUID: p?.uid });
  return true;
}

/**
 * Go's %+v of a v1.PodStatus (`{Phase:Running Conditions:[…] Message: Reason: NominatedNodeName: HostIP:…}`): its
 * phase and its own reason (the conditions before it have reasons of their own; the pod's is the one followed
 * by NominatedNodeName, or HostIP before v1.11). Undefined when the phase is not one.
 */
function goStatus(v: string): PodStatus | undefined {
  const phase = /^\{Phase:(\w+)/.exec(v)?.[1] as PodPhase | undefined;
  if (!phase || !PHASES.has(phase)) return undefined;
  const st: PodStatus = { phase };
  const reason = / Reason:(\w+) (?:NominatedNodeName|HostIP):/.exec(v);
  if (reason) st.reason = reason[1] as string;
  return st;
}
