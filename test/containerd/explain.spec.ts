/**
 * The model beside the engine on a real containerd (a private one, scripts/containerd/up.sh): the engine runs
 * with maxContainerBackOff 20s, a crash-looping pod until four back-off windows (10s, 20s, 20s, 20s), then its
 * kubelet.log is imported and explained (../scenarios/explain-roundtrip.ts, the definition the simulated node
 * runs too). Under the engine's own settings (its --config, as the server's explain route reads them) every
 * window, restart and sync agrees; under the kubelet's defaults the windows past 20s and the restarts after
 * them differ, and nothing else. A restart may be found late only where the live trace shows the engine's
 * requeue kept the rule (the machine was late: see the definition).
 */
import { defaultExplainParams, explainTrace, paramsFromConfig } from '@syncscope/core/explain';
import type { TraceEvent } from '@syncscope/core/trace';
import { type PrivateContainerd, startPrivateContainerd } from '@syncscope/server/private-containerd';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  containerWindows,
  crashLoopPod,
  expectAgreesThroughout,
  expectDiffersPastCap,
} from '../scenarios/explain-roundtrip.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { importLog, readKubeletLog } from '../support/klog-roundtrip.ts';

const POD = 'default/sc-explain';
const CAP_MS = 20_000;

let ctd: PrivateContainerd;
let h: Harness;
let windows: number[];
let imported: TraceEvent[];
let live: TraceEvent[];

beforeAll(async () => {
  ctd = await startPrivateContainerd(`/tmp/syncscope-ctd-explain-${process.pid}`);
  h = await startHarness({ runtimeEndpoint: ctd.endpoint, config: { maxContainerBackOffMs: CAP_MS } });
  const pod = await h.apply(crashLoopPod('sc-explain'));
  const uid = pod.metadata.uid as string;
  await h.waitFor('four back-off windows', () => containerWindows(h.podTrace(uid)).length >= 4, 150_000);
  // the server stops first (its close writes what is queued), so the log ends where the trace does
  await h.built.close();
  live = h.built.trace.since(0);
  windows = containerWindows(live);
  imported = importLog(await readKubeletLog(h.dataDir), live);
}, 240_000);

afterAll(async () => {
  await h?.close();
  await ctd?.stop();
});

describe('the engine beside the kubelet on containerd', () => {
  it('the engine capped its ladder at 20s', () => {
    expect(windows.slice(0, 4)).toEqual([10, 20, 20, 20]);
  });

  it('its log, explained under its own settings, agrees at every back-off window and restart', () => {
    const params = paramsFromConfig(h.built.engine.nodeInfo().configuration);
    expect(params.maxBackOffMs).toBe(CAP_MS);
    const x = explainTrace(imported, { params });
    expectAgreesThroughout(x, POD, windows, live);
    expect(x.pods.find((p) => p.pod === POD)?.counts).toMatchObject({
      backoffWindows: windows.length,
      backoffWindowsAgreeing: windows.length,
    });
  });

  it("under the kubelet's defaults, exactly the windows past 20s and the restarts after them differ", () => {
    const x = explainTrace(imported, { params: defaultExplainParams() });
    expectDiffersPastCap(x, POD, windows, { initialS: 10, maxS: 300 }, live);
  });
});
