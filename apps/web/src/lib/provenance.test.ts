/**
 * A kubelet log's events state no duration where the log gives none (durationMs 0, with an origin line) and
 * mark what the importer inferred: the words say neither "0 ms" nor a stated event for them.
 */
import { importKubeletLog } from '@syncscope/core/kubelet-log';
import { describe, expect, it } from 'vitest';
import { describeEvent } from './explain.ts';
import { POD_REF, traceBuilder } from './fixtures.ts';
import { inferredTitle, statedDurationMs } from './provenance.ts';
import { layoutPodTimeline } from './timeline-layout.ts';
import { withReducedWorker } from './worker-facts.ts';

const ev = traceBuilder();
const fromLog = { origin: { line: 7 } };
const inferred = { inferred: true };

describe('what a log states', () => {
  it('a sync error from a log: failed, with no duration; the engine’s run keeps its duration', () => {
    const sync = (extra: object) =>
      ev(1, {
        type: 'sync.result',
        workType: 'SyncPod',
        actions: [{ action: 'StartContainer', target: 'app', error: 'CrashLoopBackOff' }],
        durationMs: 0,
        ...POD_REF,
        ...extra,
      });
    expect(describeEvent(sync(fromLog))).toBe('SyncPod failed: StartContainer✗CrashLoopBackOff');
    expect(describeEvent(sync({}))).toBe('SyncPod done in 0 ms: StartContainer✗CrashLoopBackOff');
    expect(statedDurationMs(sync(fromLog) as never)).toBeNull();
  });

  it('a CRI call from a log has no duration; a probe line without its container says so', () => {
    const call = ev(2, {
      type: 'runtime.call',
      method: 'RunPodSandbox',
      durationMs: 0,
      ...POD_REF,
      ...fromLog,
    });
    expect(describeEvent(call)).toBe('CRI RunPodSandbox');
    const probe = ev(3, {
      type: 'probe.result',
      probe: 'Liveness',
      container: '',
      result: 'Failure',
      ...POD_REF,
      ...fromLog,
    });
    expect(describeEvent(probe)).toBe('Liveness probe (container not in the log): Failure');
  });

  it('an inferred ContainerStarted reads as inferred and names its rule', () => {
    const started = ev(4, {
      type: 'pleg.event',
      event: 'ContainerStarted',
      containerID: 'abc',
      ...inferred,
      ...POD_REF,
      ...fromLog,
    });
    expect(describeEvent(started)).toBe('PLEG ContainerStarted abc (inferred)');
    expect(inferredTitle(started)).toMatch(/^inferred: /);
    expect(layoutPodTimeline([started], 0).pleg[0]?.inferred).toBe(true);
  });
});

/** Sample 01's lines about its pod (testdata lines 4, 16, 45, 51, 90, 157, 169, 182, 197, 200, 209, 221, 222, 231, 355, 361, 362, 367, 371, 373, 378), in order. */
const SAMPLE_01_POD = [
  'I0820 20:41:02.641606    3312 kubelet.go:1900] SyncLoop (ADD, "api"): "gcp-filestore-csi-node-glfr9_gcp-filestore-csi-driver(0ac7a38c-74bc-4d23-ae50-2576492537e0)"',
  'I0820 20:41:02.733370    3312 kubelet.go:1913] SyncLoop (RECONCILE, "api"): "gcp-filestore-csi-node-glfr9_gcp-filestore-csi-driver(0ac7a38c-74bc-4d23-ae50-2576492537e0)"',
  'I0820 20:41:03.844670    3312 kuberuntime_manager.go:404] No sandbox for pod "gcp-filestore-csi-node-glfr9_gcp-filestore-csi-driver(0ac7a38c-74bc-4d23-ae50-2576492537e0)" can be found. Need to start a new one',
  'I0820 20:41:04.353344    3312 generic.go:153] GenericPLEG: 0ac7a38c-74bc-4d23-ae50-2576492537e0/d5b89b6a9e8972001a94c84430c7a91b310625b50f1a0485606b181a2cf1d924: non-existent -> exited',
  'I0820 20:41:09.286498    3312 generic.go:153] GenericPLEG: 0ac7a38c-74bc-4d23-ae50-2576492537e0/d5b89b6a9e8972001a94c84430c7a91b310625b50f1a0485606b181a2cf1d924: exited -> running',
  'I0820 20:41:34.027997    3312 generic.go:153] GenericPLEG: 0ac7a38c-74bc-4d23-ae50-2576492537e0/391717fba2ee163a54c275c157c11ec5af6ef25a0103abe6d9f0f76963f4d149: non-existent -> unknown',
  'I0820 20:41:37.213234    3312 generic.go:153] GenericPLEG: 0ac7a38c-74bc-4d23-ae50-2576492537e0/391717fba2ee163a54c275c157c11ec5af6ef25a0103abe6d9f0f76963f4d149: unknown -> running',
  'I0820 20:41:37.524498    3312 kubelet.go:1913] SyncLoop (RECONCILE, "api"): "gcp-filestore-csi-node-glfr9_gcp-filestore-csi-driver(0ac7a38c-74bc-4d23-ae50-2576492537e0)"',
  'I0820 21:10:40.019280    3312 kubelet.go:1916] SyncLoop (DELETE, "api"): "gcp-filestore-csi-node-glfr9_gcp-filestore-csi-driver(0ac7a38c-74bc-4d23-ae50-2576492537e0)"',
  'I0820 21:10:40.020260    3312 kuberuntime_container.go:581] Killing container "docker://391717fba2ee163a54c275c157c11ec5af6ef25a0103abe6d9f0f76963f4d149" with 30 second grace period',
  'I0820 21:10:41.075035    3312 generic.go:153] GenericPLEG: 0ac7a38c-74bc-4d23-ae50-2576492537e0/391717fba2ee163a54c275c157c11ec5af6ef25a0103abe6d9f0f76963f4d149: running -> exited',
  'I0820 21:10:42.177927    3312 generic.go:153] GenericPLEG: 0ac7a38c-74bc-4d23-ae50-2576492537e0/391717fba2ee163a54c275c157c11ec5af6ef25a0103abe6d9f0f76963f4d149: exited -> unknown',
  'I0820 21:10:42.177927    3312 generic.go:153] GenericPLEG: 0ac7a38c-74bc-4d23-ae50-2576492537e0/d5b89b6a9e8972001a94c84430c7a91b310625b50f1a0485606b181a2cf1d924: running -> exited',
  'I0820 21:10:42.214827    3312 kubelet.go:1913] SyncLoop (RECONCILE, "api"): "gcp-filestore-csi-node-glfr9_gcp-filestore-csi-driver(0ac7a38c-74bc-4d23-ae50-2576492537e0)"',
  'I0820 21:11:29.841809    3312 kuberuntime_container.go:581] Killing container "docker://391717fba2ee163a54c275c157c11ec5af6ef25a0103abe6d9f0f76963f4d149" with 30 second grace period',
  'I0820 21:11:30.609414    3312 generic.go:153] GenericPLEG: 0ac7a38c-74bc-4d23-ae50-2576492537e0/391717fba2ee163a54c275c157c11ec5af6ef25a0103abe6d9f0f76963f4d149: unknown -> non-existent',
  'I0820 21:11:30.609414    3312 generic.go:153] GenericPLEG: 0ac7a38c-74bc-4d23-ae50-2576492537e0/d5b89b6a9e8972001a94c84430c7a91b310625b50f1a0485606b181a2cf1d924: exited -> non-existent',
  'I0820 21:11:30.619190    3312 kubelet.go:1913] SyncLoop (RECONCILE, "api"): "gcp-filestore-csi-node-glfr9_gcp-filestore-csi-driver(0ac7a38c-74bc-4d23-ae50-2576492537e0)"',
  'I0820 21:11:30.627021    3312 kubelet.go:1916] SyncLoop (DELETE, "api"): "gcp-filestore-csi-node-glfr9_gcp-filestore-csi-driver(0ac7a38c-74bc-4d23-ae50-2576492537e0)"',
  'I0820 21:11:30.633837    3312 kubelet.go:1910] SyncLoop (REMOVE, "api"): "gcp-filestore-csi-node-glfr9_gcp-filestore-csi-driver(0ac7a38c-74bc-4d23-ae50-2576492537e0)"',
  'I0820 21:11:31.264248    3312 kubelet_volumes.go:145] Orphaned pod "0ac7a38c-74bc-4d23-ae50-2576492537e0" found, removing',
].join('\n');

describe("withReducedWorker: a log's graceful delete on the timeline (sample 01's pod)", () => {
  it('worker bands from the lines, inferred ones with their rule; the grace deadline 30 s after the kill', () => {
    const events = importKubeletLog(SAMPLE_01_POD).events.filter(
      (e) => 'podUID' in e && e.podUID === '0ac7a38c-74bc-4d23-ae50-2576492537e0',
    );
    const layout = withReducedWorker(layoutPodTimeline(events, 0), events);
    // DELETE, the kill (TerminatingPod), both containers exited (TerminatedPod), REMOVE (Finished), then the
    // kubelet's own word (the orphan's cleanup: Forgotten)
    expect(layout.workerBands.map((b) => `${b.state}${b.rule ? '*' : ''}`)).toEqual([
      'SyncPod*',
      'TerminatingPod*',
      'TerminatedPod*',
      'Finished*',
      'Forgotten',
    ]);
    expect(layout.grace?.gracePeriodS).toBe(30);
    expect(layout.grace?.line).toBe(10);
    expect((layout.grace?.deadline ?? 0) - (layout.grace?.start ?? 0)).toBe(30_000);
  });
});
