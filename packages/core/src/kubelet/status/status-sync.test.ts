/**
 * A pod that already Succeeded and is deleted afterwards: the apiserver's pod strategy deletes a terminal
 * pod with grace 0, so it leaves the API at once (DELETE with grace 0, then REMOVE) and its name is free.
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
  it('removes a pod that Succeeded and is deleted afterwards at once (grace 0), freeing its name', async () => {
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
      const from = trace.next - 1;
      kl.deletePod('uid-done', 30);
      expect(kl.getPod('default', 'done')).toBeUndefined();
      const ops = trace
        .since(from, (e) => e.type === 'config.update' && e.podUID === 'uid-done')
        .map((e) => (e.type === 'config.update' ? e.op : ''));
      expect(ops).toEqual(['DELETE', 'REMOVE']);

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
