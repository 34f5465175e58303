/**
 * The engine's own kubelet-format log, read back, tells each example pod's state as the engine reported it.
 * Each example pod (../../../../examples, as ./testing/examples.ts has them) runs on the simulated node under
 * a FakeClock; its trace is written as klog lines (../klog, as the server writes <data-dir>/kubelet.log),
 * imported (../kubelet-log) and folded by the reducer. At the statuses the engine reports, the log's pod (its lines up to that moment, or up to
 * one relist later) must read as kubectl reads that status: STATUS and RESTARTS, and per container its last
 * exit code and restart count; and the back-off windows read from the whole log are the engine's.
 *
 * Each example names the verbosities compared (`v`) and whether every status is compared or the last one.
 * A log has no spec and no status lines: what it cannot tell is left out of the comparison and named
 * (`cannot`), never taken from the engine.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TraceEvent } from '../events/trace.ts';
import { kubeletLogLines } from '../klog/index.ts';
import { importKubeletLog } from '../kubelet-log/index.ts';
import { PodStateReducer } from './reducer.ts';
import { EXAMPLES, engineTrace, engineWindows, reported } from './testing/examples.ts';
import type { PodSnapshot } from './types.ts';

/** The engine's relist period (the default genericPlegRelistPeriod). */
const RELIST_MS = 1_000;

let logDir: string;
beforeEach(() => {
  logDir = mkdtempSync(join(tmpdir(), 'pod-state-rt-'));
});
afterEach(() => rmSync(logDir, { recursive: true, force: true }));

/** Klog lines of the engine's trace, imported (the year is the trace's: a klog header has none). */
function importLines(lines: readonly string[], events: readonly TraceEvent[]): TraceEvent[] {
  const year = new Date((events[0] as TraceEvent).time).getUTCFullYear();
  return importKubeletLog(`${lines.join('\n')}\n`, { year }).events;
}

/** The same, as the reducer reads it from the log; a container the log shows no run of is left out. */
function fromLog(s: PodSnapshot | undefined) {
  const containers: Record<string, { lastExit?: number; restarts: number }> = {};
  for (const c of s?.containers ?? []) {
    if (c.name.basis === 'unknown' || c.restartCount.basis === 'unknown') continue;
    const st = c.state.basis === 'unknown' ? undefined : c.state.value;
    const last = c.lastState.basis === 'unknown' ? undefined : c.lastState.value;
    const term = st?.kind === 'terminated' ? st : last;
    containers[c.name.value] = {
      restarts: c.restartCount.value,
      ...(term?.exitCode !== undefined ? { lastExit: term.exitCode } : {}),
    };
  }
  return {
    word: s?.statusWord.basis === 'unknown' ? undefined : s?.statusWord.value,
    restarts: s?.restarts.basis === 'unknown' ? undefined : s?.restarts.value,
    containers,
  };
}

describe("the engine's log read back gives each example pod's state as the engine reported it", () => {
  for (const ex of EXAMPLES) {
    for (const v of ex.v) {
      it(`${ex.name}, -v=${v}: STATUS, RESTARTS, last exit codes and back-off windows${ex.everyStatus ? ' at every status' : ''}`, async () => {
        const { pods, events } = await engineTrace([ex], logDir);
        const pod = pods[0] as (typeof pods)[number];
        const uid = pod.metadata.uid as string;
        // each event's lines, with its time: the log as written by any moment
        const written = events.map((e) => ({ e, lines: kubeletLogLines(e, { v, pid: 4242 }) }));
        const upTo = (last: (i: number) => boolean) => {
          const out: string[] = [];
          for (let i = 0; i < written.length && last(i); i++) out.push(...(written[i]?.lines ?? []));
          return fromLog(new PodStateReducer().addAll(importLines(out, events)).snapshot(uid));
        };
        let compared = 0;
        const words = new Set<string>();
        for (const [at, ev] of events.entries()) {
          if (ev.type !== 'status.update' || ev.podUID !== uid) continue;
          const want = reported(pod, ev.status, ev.time);
          words.add(want.word);
          const last = !events.slice(at + 1).some((e) => e.type === 'status.update' && e.podUID === uid);
          if (!ex.everyStatus && !last) continue;
          if (ex.cannot?.words.test(want.word)) continue;
          // the log as written when the engine reported this status, or up to one relist later (the death
          // the status reports reaches the log with the relist that sees it)
          const same = (g: ReturnType<typeof fromLog>) =>
            g.word === want.word &&
            g.restarts === want.restarts &&
            Object.entries(g.containers).every(
              ([n, c]) => JSON.stringify(c) === JSON.stringify(want.containers[n]),
            );
          let got = upTo((i) => i < at);
          for (let k = at + 1; !same(got) && k <= events.length; k++) {
            if ((events[k - 1] as TraceEvent).time > ev.time + RELIST_MS) break;
            const g = upTo((i) => i < k);
            if (same(g)) got = g;
          }
          // before the log shows a container, it cannot say ContainerCreating: the word is unknown, not made up
          if (
            got.word === undefined &&
            want.word === 'ContainerCreating' &&
            Object.keys(got.containers).length === 0
          )
            continue;
          const where = `${ex.name} -v=${v} at ${new Date(ev.time).toISOString()} (${want.word})`;
          expect(got.word, where).toBe(want.word);
          expect(got.restarts, where).toBe(want.restarts);
          for (const [name, c] of Object.entries(got.containers))
            expect(c, `${where}: container ${name}`).toEqual(want.containers[name]);
          compared++;
        }
        expect(compared, `${ex.name}: statuses compared`).toBeGreaterThan(0);
        // the windows the log reads are the engine's
        const all = written.flatMap((w) => w.lines);
        const s = new PodStateReducer().addAll(importLines(all, events)).snapshot(uid) as PodSnapshot;
        const read = s.backoffs
          .filter((b) => b.kind === 'container')
          .flatMap((b) => b.ladder.map((w) => `${b.container} ${w.delayS}s`));
        expect(read).toEqual(engineWindows(events).map((w) => `${w.container} ${w.delayS}s`));
        if (ex.name === 'crashloop') {
          expect([...words]).toEqual(expect.arrayContaining(['Error', 'CrashLoopBackOff']));
          expect(read.slice(0, 4)).toEqual(['app 10s', 'app 20s', 'app 40s', 'app 80s']);
        }
      }, 60_000);
    }
  }
});
