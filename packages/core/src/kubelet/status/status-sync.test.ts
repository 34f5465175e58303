/**
 * The status manager's periodic sync (statusSyncPeriodMs, the kubelet's 10 s): a pod whose worker finished
 * and that carries a deletionTimestamp leaves the API, whatever happened first — the DELETE or the end of
 * the pod. A pod that already Succeeded and is deleted afterwards is the case no other path covers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { scriptPod, simKubelet } from '../testing/sim-kubelet.ts';

let logDir: string;
beforeEach(() => {
  logDir = mkdtempSync(join(tmpdir(), 'status-sync-'));
});
afterEach(() => rmSync(logDir, { recursive: true, force: true }));

describe('status manager sync', () => {
  it('removes a pod that Succeeded and is deleted afterwards within one status sync period, freeing its name', async () => {
    const { clock, trace, kl } = simKubelet({ podLogsDirectory: logDir });
    const pod = scriptPod(clock, { uid: 'uid-done', name: 'done' }, 'exit 0', {
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 1,
    });
    kl.addPod(pod);
    kl.start();
    try {
      await clock.stepUntil(() => kl.getPodByUID('uid-done')?.status?.phase === 'Succeeded', 60_000, 100);
      // let the worker run SyncTerminatingPod and SyncTerminatedPod to the end
      await clock.stepUntil(
        () =>
          trace.since(0, (e) => e.type === 'worker.state' && e.podUID === 'uid-done' && e.to === 'Finished')
            .length > 0,
        60_000,
        100,
      );
      kl.deletePod('uid-done', 30);
      expect(kl.getPod('default', 'done')?.metadata.deletionTimestamp).toBeDefined();
      const deletedAt = clock.now();
      await clock.stepUntil(() => kl.getPod('default', 'done') === undefined, 30_000, 100);
      expect(clock.now() - deletedAt).toBeLessThanOrEqual(10_000);
      const removes = trace.since(
        0,
        (e) => e.type === 'config.update' && e.op === 'REMOVE' && e.podUID === 'uid-done',
      );
      expect(removes).toHaveLength(1);

      // the name is free again: a new pod with it runs
      kl.addPod(
        scriptPod(clock, { uid: 'uid-again', name: 'done' }, 'sleep 100', { restartPolicy: 'Never' }),
      );
      await clock.stepUntil(() => kl.getPodByUID('uid-again')?.status?.phase === 'Running', 60_000, 100);
    } finally {
      await kl.stop();
    }
  });
});
