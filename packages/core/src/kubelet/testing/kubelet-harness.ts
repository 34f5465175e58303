/**
 * A whole Kubelet (the real runtime manager, prober, PLEG and pod workers) on the in-memory FakeCriRuntime and
 * a FakeClock, for tests of behaviour that crosses the parts: probe-driven restarts, the ContainerDied
 * cleanup, grace shortening. Tests only.
 */
import type { Container, Event, Pod } from '../../api/v1.ts';
import { rfc3339 } from '../../api/v1.ts';
import { FakeClock } from '../../clock/fake-clock.ts';
import type { CriRuntime, ExecSyncResponse } from '../../cri/types.ts';
import { TraceRecorder } from '../../events/recorder.ts';
import type { TraceEvent, TraceOf } from '../../events/trace.ts';
import type { KubeletConfiguration } from '../configuration.ts';
import { Kubelet } from '../kubelet.ts';
import { FakeCriRuntime } from '../kuberuntime/fake-cri-runtime.ts';

const IMAGE = 'busybox:1.36';

export function kubeletHarness(config: Partial<KubeletConfiguration> = {}) {
  const clock = new FakeClock();
  const trace = new TraceRecorder(clock);
  const cri = new FakeCriRuntime(clock);
  cri.present.set(IMAGE, 1_000);
  const cond = (type: string) => ({ type, status: true, reason: '', message: '' });
  const api: CriRuntime = cri; // overriding through the interface's (wider) types
  api.status = async () => ({
    status: { conditions: [cond('RuntimeReady'), cond('NetworkReady')] },
    info: {},
  });
  /** what ExecSync answers (exit code per call); default 0 */
  let exec: (id: string, cmd: string[]) => number = () => 0;
  api.execSync = async (id: string, cmd: string[]): Promise<ExecSyncResponse> => {
    const code = exec(id, cmd);
    return { exit_code: code, stdout: Buffer.alloc(0), stderr: Buffer.from(code ? 'probe says no' : '') };
  };
  const kl = new Kubelet({
    cri,
    clock,
    trace,
    config,
    runtimeEndpoint: 'fake',
    simulated: true,
    random: () => 0,
  });
  const pod = (name: string, containers: Container[], spec: Partial<Pod['spec']> = {}): Pod => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { uid: `uid-${name}`, name, namespace: 'default', creationTimestamp: rfc3339(clock.now()) },
    spec: { containers, restartPolicy: 'Always', terminationGracePeriodSeconds: 30, ...spec },
  });
  const container = (name: string, extra: Partial<Container> = {}): Container => ({
    name,
    image: IMAGE,
    command: ['sh', '-c', 'sleep infinity'],
    ...extra,
  });
  const status = (uid: string, name: string) =>
    kl.getPodByUID(uid)?.status?.containerStatuses?.find((c) => c.name === name);
  const events = (podName: string): Event[] =>
    kl.getEvents().filter((e) => e.involvedObject.name === podName);
  const traced = <K extends TraceEvent['type']>(type: K) =>
    trace.since(0, (e) => e.type === type) as TraceOf<K>[];
  /** the runtime container IDs of `name`, oldest first */
  const instances = (name: string) =>
    cri
      .containersNamed(name)
      .sort((a, b) => Number(BigInt(a.created_at) - BigInt(b.created_at)))
      .map((c) => c.id);
  return {
    clock,
    trace,
    cri,
    kl,
    pod,
    container,
    status,
    events,
    traced,
    instances,
    setExec: (fn: (id: string, cmd: string[]) => number) => {
      exec = fn;
    },
  };
}
