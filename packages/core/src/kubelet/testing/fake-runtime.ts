import type { Pod } from '../../api/v1.ts';
import type { PassiveClock } from '../../clock/clock.ts';
import type { StatusResponse, VersionResponse } from '../../cri/types.ts';
import type { SyncAction } from '../../events/trace.ts';
import type { AdmittedPod } from '../config/admitted-pod.ts';
import type {
  ContainerStatusRT,
  PodStatusRT,
  PodSyncResult,
  RuntimePod,
  SandboxStatusRT,
} from '../container/runtime.ts';
import type { KubeletRuntime } from '../kubelet-components.ts';
import { toRuntimeContainer, toRuntimeSandbox } from '../kuberuntime/util.ts';

interface FakePod {
  id: string;
  name: string;
  namespace: string;
  managed: boolean;
  sandboxes: SandboxStatusRT[];
  containers: ContainerStatusRT[];
}

/**
 * A kubecontainer Runtime in memory, for the loop's unit tests (no CRI). syncPod creates a sandbox when
 * none is ready and starts every spec container that is not running (or that the restart policy would
 * restart); killPod stops them. Tests change the runtime behind the kubelet's back with exit()/addForeign(),
 * and make calls fail with failNext(). Every call is appended to `calls`.
 */
export class FakeRuntime implements KubeletRuntime {
  readonly pods = new Map<string, FakePod>();
  readonly calls: string[] = [];
  runtimeReady = true;
  networkReady = true;
  private seq = 0;
  private failures = new Map<string, string[]>();

  constructor(private readonly clock: PassiveClock) {}

  failNext(method: string, message: string): void {
    const l = this.failures.get(method) ?? [];
    l.push(message);
    this.failures.set(method, l);
  }

  private call(method: string): void {
    this.calls.push(method);
    const f = this.failures.get(method)?.shift();
    if (f !== undefined) throw new Error(f);
  }

  async version(): Promise<VersionResponse> {
    this.call('Version');
    return { version: '0.1.0', runtime_name: 'fake', runtime_version: '1.0', runtime_api_version: 'v1' };
  }

  async status(): Promise<StatusResponse> {
    this.call('Status');
    return {
      status: {
        conditions: [
          { type: 'RuntimeReady', status: this.runtimeReady, reason: '', message: '' },
          {
            type: 'NetworkReady',
            status: this.networkReady,
            reason: this.networkReady ? '' : 'NetworkPluginNotReady',
            message: '',
          },
        ],
      },
      info: {},
    };
  }

  gcBackoff(): void {
    this.calls.push('GCBackoff');
  }

  async getPods(all: boolean): Promise<RuntimePod[]> {
    this.call('GetPods');
    const out: RuntimePod[] = [];
    for (const p of this.pods.values()) {
      const sandboxes = p.sandboxes.filter((s) => all || s.state === 'ready');
      const containers = p.containers.filter((c) => all || c.state === 'running');
      if (sandboxes.length === 0 && containers.length === 0) continue;
      out.push({
        id: p.id,
        name: p.name,
        namespace: p.namespace,
        createdAt: p.sandboxes[0]?.createdAt ?? 0,
        managed: p.managed,
        sandboxes: sandboxes.map(toRuntimeSandbox),
        containers: containers.map(toRuntimeContainer),
      });
    }
    return out;
  }

  async getPodStatus(uid: string, name: string, namespace: string): Promise<PodStatusRT> {
    this.call('GetPodStatus');
    const p = this.pods.get(uid);
    const sandboxes = [...(p?.sandboxes ?? [])].sort((a, b) => b.createdAt - a.createdAt);
    const latest = sandboxes[0];
    return {
      id: uid,
      name,
      namespace,
      ips: latest?.state === 'ready' && latest.ip ? [latest.ip] : [],
      containerStatuses: [...(p?.containers ?? [])]
        .sort((a, b) => b.createdAt - a.createdAt)
        .map((c) => ({ ...c })),
      sandboxStatuses: sandboxes.map((s) => ({ ...s })),
      timestamp: this.clock.now(),
    };
  }

  async syncPod(pod: AdmittedPod, status: PodStatusRT): Promise<PodSyncResult> {
    this.call('SyncPod');
    const uid = pod.metadata.uid;
    const fp = this.pods.get(uid) ?? {
      id: uid,
      name: pod.metadata.name,
      namespace: pod.metadata.namespace ?? 'default',
      managed: true,
      sandboxes: [],
      containers: [],
    };
    this.pods.set(uid, fp);
    const actions: SyncAction[] = [];
    const now = this.clock.now();
    if (!status.sandboxStatuses.some((s) => s.state === 'ready')) {
      const n = ++this.seq;
      fp.sandboxes.push({
        id: `sb-${n}`,
        state: 'ready',
        attempt: fp.sandboxes.length,
        createdAt: now,
        ip: `10.88.0.${n}`,
        hostNetwork: false,
      });
      actions.push({ action: 'CreatePodSandbox', target: `${pod.metadata.name}_${fp.namespace}(${uid})` });
    }
    actions.push({ action: 'ConfigPodSandbox', target: `${pod.metadata.name}_${fp.namespace}(${uid})` });
    const policy = pod.spec.restartPolicy ?? 'Always';
    for (const c of pod.spec.containers) {
      const last = status.containerStatuses.find((s) => s.name === c.name);
      if (last?.state === 'running') continue;
      if (last?.state === 'exited' && (policy === 'Never' || (policy === 'OnFailure' && last.exitCode === 0)))
        continue;
      const n = ++this.seq;
      fp.containers.push({
        id: `c-${n}`,
        name: c.name,
        state: 'running',
        createdAt: now,
        startedAt: now,
        finishedAt: 0,
        exitCode: 0,
        image: c.image,
        imageRef: `sha256:${c.image}`,
        hash: '1',
        restartCount: last ? last.restartCount + 1 : 0,
        reason: '',
        message: '',
      });
      actions.push({ action: 'StartContainer', target: c.name });
    }
    return { actions };
  }

  async killPod(_pod: Pod | undefined, runningPod: RuntimePod, grace?: number): Promise<PodSyncResult> {
    this.call(`KillPod(${grace ?? ''})`);
    const fp = this.pods.get(runningPod.id);
    const actions: SyncAction[] = [];
    for (const c of fp?.containers ?? []) {
      if (c.state !== 'running') continue;
      this.exitContainer(c, 137, 'Error');
      actions.push({ action: 'KillContainer', target: c.name });
    }
    for (const s of fp?.sandboxes ?? []) {
      s.state = 'notready';
      actions.push({ action: 'KillPodSandbox', target: runningPod.name });
    }
    return { actions };
  }

  /** The container process of the newest `name` instance exits. */
  exit(uid: string, name: string, exitCode: number): void {
    const c = this.pods
      .get(uid)
      ?.containers.filter((x) => x.name === name)
      .pop();
    if (c) this.exitContainer(c, exitCode, exitCode === 0 ? 'Completed' : 'Error');
  }

  /** A running pod this runtime did not get from us (managed=false: foreign, or orphaned when true). */
  addRunningPod(uid: string, name: string, managed: boolean): void {
    const now = this.clock.now();
    const n = ++this.seq;
    this.pods.set(uid, {
      id: uid,
      name,
      namespace: 'default',
      managed,
      sandboxes: [
        { id: `sb-${n}`, state: 'ready', attempt: 0, createdAt: now, ip: `10.88.1.${n}`, hostNetwork: false },
      ],
      containers: [
        {
          id: `c-${n}`,
          name: 'main',
          state: 'running',
          createdAt: now,
          startedAt: now,
          finishedAt: 0,
          exitCode: 0,
          image: 'busybox',
          imageRef: 'sha256:busybox',
          hash: '1',
          restartCount: 0,
          reason: '',
          message: '',
        },
      ],
    });
  }

  private exitContainer(c: ContainerStatusRT, exitCode: number, reason: string): void {
    c.state = 'exited';
    c.exitCode = exitCode;
    c.reason = reason;
    c.finishedAt = this.clock.now();
  }
}

/** An EventRecorder that keeps what it is told (tests). */
export class FakeRecorder {
  readonly events: { reason: string; type: string; message: string; pod: string }[] = [];
  event(pod: Pod, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.events.push({ pod: pod.metadata.name, type, reason, message });
  }
  list(): never[] {
    return [];
  }
}
