/**
 * Lines of the kubelet's loop the first recognisers did not read, written from the kubelet's own source (v1.32 as
 * vendored by kubeedge, and kubernetes/kubernetes up to v1.38.0-alpha): SyncResult actions added in v1.33+, PLEG
 * events of the whole pod, the kills asked of a worker before its UpdatePod call, an orphan's worker finishing,
 * and the sandbox reconcile.
 */
import { describe, expect, it } from 'vitest';
import { k, of, run } from './test-lines.ts';

const UID = '99999999-8888-7777-6666-555555555555';
const POD = 'pod="shop/web-0"';

describe('lines of newer kubelets', () => {
  it('SyncResults of an in-place resize and of a container removed before the pod restarts', () => {
    const err =
      'err="[failed to \\"ResizePodInPlace\\" for \\"shop/web-0\\" with ResizePodInPlaceError: \\"cannot resize\\", ' +
      'failed to \\"RemoveContainer\\" for \\"app\\" with RemoveContainerError: \\"busy\\"]"';
    const { events } = run([k(`"Error syncing pod, skipping" ${err} ${POD} podUID="${UID}"`, 0, 'E')]);
    expect(of(events, 'sync.result')[0]?.actions).toEqual([
      {
        action: 'ResizePodInPlace',
        target: 'shop/web-0',
        error: 'ResizePodInPlaceError',
        message: 'cannot resize',
      },
      { action: 'RemoveContainer', target: 'app', error: 'RemoveContainerError', message: 'busy' },
    ]);
  });

  it('PLEG events of the whole pod carry no container: PodSync and ConditionMet with Data null', () => {
    const ev = (type: string) =>
      k(`"SyncLoop (PLEG): event for pod" ${POD} event={"ID":"${UID}","Type":"${type}","Data":null}`);
    const { events, summary } = run([ev('PodSync'), ev('ConditionMet')]);
    expect(summary.raw).toBe(0);
    expect(of(events, 'pleg.event').map((e) => [e.event, e.containerID, e.podUID])).toEqual([
      ['PodSync', '', UID],
      ['ConditionMet', '', UID],
    ]);
  });

  it('a pod in a terminal phase begins its teardown: a kill, and the worker terminating', () => {
    const { events } = run([
      k(`"Pod is being synced for the first time" ${POD} podUID="${UID}" updateType="create"`, 0),
      k(`"Notifying pod of pending update" ${POD} podUID="${UID}" workType="sync"`, 0),
      k(
        `"Pod is in a terminal phase (success/failed), begin teardown" ${POD} podUID="${UID}" updateType="update"`,
      ),
    ]);
    expect(of(events, 'worker.update').map((e) => e.updateType)).toEqual(['SyncPodCreate', 'SyncPodKill']);
    expect(of(events, 'worker.state').map((e) => e.to)).toEqual(['SyncPod', 'TerminatingPod']);
  });

  it("an orphan's cleanup (-v=2) and the UpdatePod lines it leads to (-v=4) are one kill; its worker ends Finished", () => {
    const opts =
      'killPodOptions="&{CompletedCh:<nil> Evict:false PodStatusFunc:<nil> PodTerminationGracePeriodSecondsOverride:<nil>}"';
    const { events, summary } = run([
      k(`"Clean up containers for orphaned pod we had not seen before" podUID="${UID}" ${opts}`, 0),
      k(`"Pod is being synced for the first time" ${POD} podUID="${UID}" updateType="kill"`, 0),
      k(`"Pod is orphaned and must be torn down" ${POD} podUID="${UID}" updateType="kill"`, 0),
      k(`"Notifying pod of pending update" ${POD} podUID="${UID}" workType="terminating"`, 0),
      k(`"Pod terminated all orphaned containers successfully and worker can now stop" podUID="${UID}"`, 2),
    ]);
    expect(summary.raw).toBe(0);
    expect(of(events, 'worker.update').map((e) => [e.updateType, e.pod, e.origin?.line])).toEqual([
      ['SyncPodKill', 'shop/web-0', 1],
    ]);
    expect(of(events, 'worker.state').map((e) => [e.from, e.to])).toEqual([
      [null, 'TerminatingPod'],
      ['TerminatingPod', 'Finished'],
    ]);
  });

  it('a deleted pod is killed (-v=3): a kill for a syncing worker, only the update once the worker is past it', () => {
    const { events } = run([
      k(`"Pod is being synced for the first time" ${POD} podUID="${UID}" updateType="create"`, 0),
      k(`"Notifying pod of pending update" ${POD} podUID="${UID}" workType="sync"`, 0),
      k(`"Pod has been deleted and must be killed" ${POD} podUID="${UID}"`),
      k(`"Pod is complete and the worker can now stop" ${POD} podUID="${UID}"`),
      k(`"Pod has been deleted and must be killed" ${POD} podUID="${UID}"`),
    ]);
    expect(of(events, 'worker.update').map((e) => e.updateType)).toEqual([
      'SyncPodCreate',
      'SyncPodKill',
      'SyncPodKill',
    ]);
    expect(of(events, 'worker.state').map((e) => e.to)).toEqual(['SyncPod', 'TerminatingPod', 'Finished']);
  });

  it('several ready sandboxes to reconcile: a new sandbox, as a missing one', () => {
    const { events } = run([
      k(`"SyncLoop ADD" source="api" pods=["shop/web-0"]`, 0),
      k(`"Multiple sandboxes are ready for Pod. Need to reconcile them" ${POD}`),
    ]);
    expect(of(events, 'runtime.call').map((e) => [e.method, e.pod])).toEqual([
      ['RunPodSandbox', 'shop/web-0'],
    ]);
  });
});
