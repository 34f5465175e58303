/**
 * A pod restarting 7 times with back-off windows 10s → 5m0s, as a v1.31 kubelet logs it at -v=2 (the line
 * forms of sample 03, ../kubelet-log/testdata: journald prefix, "container finished", "SyncLoop (PLEG)",
 * "Error syncing pod"). The log is written here, run by run, so the expectations are its own numbers.
 * Also: the fold stays cheap over 100k+ events.
 */
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../events/trace.ts';
import { importKubeletLog } from '../kubelet-log/index.ts';
import { PodStateReducer } from './reducer.ts';
import type { PodSnapshot } from './types.ts';

const UID = '5f0c1a2b3c4d5e6f708192a3b4c5d6e7';
const POD = 'shop/web-0';
const DELAYS = [10, 20, 40, 80, 160, 300, 300];

const go = (s: number) => (s >= 60 ? `${Math.floor(s / 60)}m${s % 60}s` : `${s}s`);
const id = (n: number) => n.toString(16).padStart(64, 'c');

function stamp(ms: number): string {
  const d = new Date(ms);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const hms = `${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
  return `May 12 ${hms} node-a kubelet.sh[2473]: I0512 ${hms}.${p(d.getUTCMilliseconds(), 3)}000    2473`;
}

/** The log: ADD, a first start, then per window a death (exit 1), its back-off line and the restart after it. */
function crashLog(windows = DELAYS, endInsideLast = true): string {
  let t = Date.UTC(2024, 4, 12, 5, 0, 0);
  const out = [`${stamp(t)} kubelet.go:2421] "SyncLoop ADD" source="api" pods=["${POD}"]`];
  const pleg = (type: string, n: number) =>
    `${stamp(t)} kubelet.go:2453] "SyncLoop (PLEG): event for pod" pod="${POD}" event={"ID":"${UID}","Type":"${type}","Data":"${id(n)}"}`;
  t += 2000;
  out.push(pleg('ContainerStarted', 1));
  windows.forEach((d, i) => {
    t += 3000;
    out.push(
      `${stamp(t)} generic.go:334] "Generic (PLEG): container finished" podID="${UID}" containerID="${id(i + 1)}" exitCode=1`,
    );
    out.push(pleg('ContainerDied', i + 1));
    t += 1;
    out.push(
      `${stamp(t).replace(' I0512', ' E0512')} pod_workers.go:1301] "Error syncing pod, skipping" err="failed to \\"StartContainer\\" for \\"app\\" with CrashLoopBackOff: \\"back-off ${go(d)} restarting failed container=app pod=web-0_shop(${UID})\\"" pod="${POD}" podUID="${UID}"`,
    );
    if (i === windows.length - 1 && endInsideLast) return;
    t += d * 1000 + 1500;
    out.push(pleg('ContainerStarted', i + 2));
  });
  return `${out.join('\n')}\n`;
}

describe('a pod restarting 7 times, back-off 10s → 5m0s, from its log', () => {
  const { events } = importKubeletLog(crashLog(), { year: 2024 });
  const s = new PodStateReducer().addAll(events).snapshot(UID) as PodSnapshot;

  it('is CrashLoopBackOff with 7 restarts (deaths after the first start, each followed by a start), inferred', () => {
    expect(s.statusWord).toMatchObject({ basis: 'inferred', value: 'CrashLoopBackOff' });
    // 7 deaths, 6 of them followed by a start; the last still waits in its window (the kubelet counts at the start)
    expect(s.restarts).toMatchObject({ basis: 'inferred', value: 6 });
    const app = s.containers.find((c) => c.name.basis !== 'unknown' && c.name.value === 'app');
    expect(app?.lastState).toMatchObject({ value: { kind: 'terminated', exitCode: 1, reason: 'Error' } });
    expect(s.phase).toMatchObject({ basis: 'inferred', value: 'Running' });
    expect(s.ready.basis).toBe('unknown');
  });

  it('keeps the ladder the log printed, and says the log ends inside the last window', () => {
    const b = s.backoffs[0];
    expect(b?.ladder.map((r) => r.delayS)).toEqual(DELAYS);
    expect(b).toMatchObject({ container: 'app', delayS: 300, exitCode: { basis: 'stated', value: 1 } });
    expect(b?.outcome.kind).toBe('ends-inside');
    expect((b?.until ?? 0) - (b?.since ?? 0)).toBe(300_000);
  });

  it('after the 7th restart: Running, RESTARTS 7, the last window ended in a restart', () => {
    const { events: more } = importKubeletLog(crashLog(DELAYS, false), { year: 2024 });
    const after = new PodStateReducer().addAll(more).snapshot(UID) as PodSnapshot;
    expect(after.statusWord).toMatchObject({ value: 'Running' });
    expect(after.restarts).toMatchObject({ basis: 'inferred', value: 7 });
    expect(after.backoffs[0]?.outcome.kind).toBe('restarted');
  });

  it('folds 100k+ events in linear time', () => {
    // 50 pods × 1000 crash cycles (start, death, back-off): 150k events
    const all: TraceEvent[] = [];
    let seq = 0;
    for (let cycle = 0; cycle < 1000; cycle++)
      for (let p = 0; p < 50; p++) {
        const ref = { podUID: `uid-${p}`, pod: `ns/p-${p}` };
        const time = cycle * 400_000 + p;
        const containerID = `c-${p}-${cycle}`;
        all.push({
          type: 'pleg.event',
          event: 'ContainerStarted',
          containerID,
          ...ref,
          seq: ++seq,
          time,
          origin: { line: seq },
        });
        all.push({
          type: 'pleg.event',
          event: 'ContainerDied',
          containerID,
          exitCode: 1,
          ...ref,
          seq: ++seq,
          time: time + 1000,
          origin: { line: seq },
        });
        all.push({
          type: 'backoff',
          kind: 'container',
          container: 'app',
          key: `${ref.pod}/app`,
          delayS: 300,
          until: time + 301_000,
          ...ref,
          seq: ++seq,
          time: time + 1001,
          origin: { line: seq },
        });
      }
    const t0 = performance.now();
    const r = new PodStateReducer();
    for (const ev of all) r.add(ev);
    const s = r.snapshot('uid-7');
    // about 5 µs an event on an idle core; the bound leaves room for a shared, loaded machine
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(s?.restarts).toMatchObject({ value: 999, atLeast: true });
    expect(s?.statusWord).toMatchObject({ value: 'CrashLoopBackOff' });
  }, 30_000);
});
