/**
 * An observed node's pods through the one pod-state model: our engine crash-loops one pod and runs another on a
 * simulated node (FakeClock), an observer relists the same runtime by hand, and its trace is folded by the
 * reducer the dashboard uses. The runtime states containers' states, exits and restart counts; readiness, the
 * phase and a CrashLoopBackOff are worked out, so they must show as inferred by their rule or as unknown.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from '@syncscope/core/api/v1';
import { PodStateReducer, RULES } from '@syncscope/core/pod-state';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { observedNode } from './observer-testing.ts';

let logDir: string;
beforeEach(() => {
  logDir = mkdtempSync(join(tmpdir(), 'observed-state-'));
});
afterEach(() => rmSync(logDir, { recursive: true, force: true }));

const pod = (name: string, script: string): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { uid: `uid-${name}`, name, namespace: 'default' },
  spec: {
    restartPolicy: 'Always',
    containers: [
      { name: 'app', image: 'busybox', imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', script] },
    ],
  },
});

async function observe() {
  const { clock, kl, observer, observed } = observedNode(logDir);
  kl.addPod(pod('crash', 'exit 1'));
  kl.addPod(pod('run', 'while true; do sleep 5; done'));
  kl.start();
  const r = new PodStateReducer();
  observed.subscribe((e) => r.add(e));
  for (let i = 0; i < 400; i++) {
    await clock.step(100);
    await observer.pleg.relist();
    const app = r.snapshot('uid-crash')?.containers[0];
    if (app?.state.basis !== 'unknown' && app?.state.value.kind === 'waiting' && i > 50) break;
  }
  await kl.stop();
  await observer.stop();
  return r;
}

describe("an observed node's pods in the pod-state model", () => {
  it('says what the runtime stated and what was worked out, by which rule', async () => {
    const r = await observe();
    const crash = r.snapshot('uid-crash');
    const app = crash?.containers[0];
    expect(app?.state).toMatchObject({
      basis: 'inferred',
      value: { kind: 'waiting', reason: 'CrashLoopBackOff' },
      rule: RULES.observedBackoff,
    });
    expect(crash?.statusWord).toMatchObject({ value: 'CrashLoopBackOff' });
    expect(app?.restartCount.basis).toBe('stated');
    expect(app?.lastState).toMatchObject({ basis: 'stated', value: { kind: 'terminated', exitCode: 1 } });
    expect(app?.ready).toMatchObject({ basis: 'inferred', value: false, rule: RULES.notReady });
    expect(crash?.phase).toMatchObject({ basis: 'inferred', value: 'Running', rule: RULES.observedPhase });

    const run = r.snapshot('uid-run');
    expect(run?.containers[0]?.state).toMatchObject({ basis: 'stated', value: { kind: 'running' } });
    // no API server watched: the spec, and so whether the container has a readiness probe, is not known
    expect(run?.containers[0]?.ready).toMatchObject({ basis: 'unknown' });
    expect(run?.ready.basis).toBe('unknown');
  });
});
