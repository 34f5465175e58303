/**
 * prober/prober.go's results (the loop's "SyncLoop (probe)" is in syncloop.ts):
 *   "Probe failed" probeType="Liveness" pod="ns/a" podUID=… containerName="app" probeResult="failure" output=…
 *   "Probe succeeded" probeType="Readiness" pod=… podUID=… containerName=…        (-v=3)
 *   "Probe succeeded with a warning" … output=…                                    (-v=3: a redirect not followed)
 *   "Probe errored" err=… probeType=… pod=… podUID=… containerName=… probeResult=…
 *   "Probe unknown without error" probeType=… pod=… podUID=… containerName=… probeResult="unknown"
 *   "Unsupported probe result" probeType=… … probeResult=…       (both -v=1; the worker counts them as failures)
 *   Liveness probe for "a_ns(uid):app" failed (failure): <output>                (glog)
 *   Readiness probe for "a_ns(uid):app" succeeded                                 (glog, -v=3)
 */
import { fromFullName, fromRef } from '../pods.ts';
import { type Ctx, type Msg, PROBE_TYPES, probeResultOf } from '../state.ts';

const OLD =
  /^(Liveness|Readiness|Startup) probe for "([^"]*):([^":]*)" (?:failed \((\w+)\)|(succeeded)|errored)(?:: ([\s\S]*))?/;

export function probes(m: Msg, ctx: Ctx): boolean {
  const s = m.s;
  if (s) {
    const ok = s.msg === 'Probe succeeded' || s.msg === 'Probe succeeded with a warning';
    const unknown = s.msg === 'Probe unknown without error' || s.msg === 'Unsupported probe result';
    if (!ok && !unknown && s.msg !== 'Probe failed' && s.msg !== 'Probe errored') return false;
    const probe = PROBE_TYPES[(s.kv.probeType ?? '').toLowerCase()];
    if (!probe) return false;
    const result = ok
      ? 'Success'
      : s.msg === 'Probe errored' || unknown
        ? 'Unknown'
        : probeResultOf(s.kv.probeResult ?? 'failure');
    const d = {
      type: 'probe.result' as const,
      container: s.kv.containerName ?? '',
      probe,
      result,
      pod: fromRef(s.kv.pod),
      podUID: s.kv.podUID,
    };
    const output = s.kv.output ?? s.kv.err;
    ctx.emit(output ? { ...d, output } : d);
    return true;
  }
  const r = OLD.exec(m.text);
  if (!r) return false;
  const name = fromFullName(r[2] as string);
  const probe = PROBE_TYPES[(r[1] as string).toLowerCase()];
  if (!probe) return false;
  const result = r[5] ? 'Success' : r[4] ? probeResultOf(r[4]) : 'Unknown';
  const d = {
    type: 'probe.result' as const,
    container: r[3] as string,
    probe,
    result,
    pod: name?.pod,
    podUID: name?.uid,
  };
  ctx.emit(r[6] ? { ...d, output: r[6] } : d);
  return true;
}
