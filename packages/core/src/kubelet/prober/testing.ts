/**
 * Test doubles for the prober (pkg/kubelet/prober/testing.go): a scripted ExecSync, a scripted NetProber,
 * an event recorder that keeps what it was given, and a harness wiring a ProberManager to them on a
 * FakeClock. Tests only.
 */
import type { Container, ContainerStatus, Pod, PodStatus } from '../../api/v1.ts';
import { FakeClock } from '../../clock/fake-clock.ts';
import type { ExecSyncResponse } from '../../cri/types.ts';
import { TraceRecorder } from '../../events/recorder.ts';
import type { EventRecorder, EventType } from '../events/event-recorder.ts';
import type { HttpProbeAnswer, NetProber, TcpProbeAnswer } from './net-prober.ts';
import { ProberManager, type ProberUpdate } from './prober-manager.ts';

export interface ExecCall {
  containerID: string;
  cmd: string[];
  timeout: number;
  at: number;
}

export interface RecordedEvent {
  type: EventType;
  reason: string;
  message: string;
  fieldPath: string | undefined;
}

export function execResult(exitCode: number, stdout = '', stderr = ''): ExecSyncResponse {
  return { exit_code: exitCode, stdout: Buffer.from(stdout), stderr: Buffer.from(stderr) };
}

export function makePod(containers: Container[], extra: Partial<Pod['spec']> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', uid: 'uid-1' },
    spec: { restartPolicy: 'Always', containers, ...extra },
  };
}

export function runningStatus(
  name: string,
  containerID: string,
  startedAt: number,
  started = true,
): ContainerStatus {
  return {
    name,
    containerID,
    state: { running: { startedAt: new Date(startedAt).toISOString() } },
    lastState: {},
    ready: false,
    restartCount: 0,
    image: 'busybox',
    imageID: '',
    started,
  };
}

export class ProberHarness {
  readonly clock = new FakeClock();
  readonly trace = new TraceRecorder(this.clock);
  readonly events: RecordedEvent[] = [];
  readonly execCalls: ExecCall[] = [];
  readonly httpCalls: string[] = [];
  readonly tcpCalls: string[] = [];
  readonly updates: (ProberUpdate & { at: number })[] = [];
  /** answers ExecSync; replace per test */
  exec: (call: ExecCall) => Promise<ExecSyncResponse> = async () => execResult(0);
  http: (url: string) => Promise<HttpProbeAnswer> = async () => ({ status: 200, body: 'ok' });
  tcp: (host: string, port: number) => Promise<TcpProbeAnswer> = async () => ({ ok: true });
  readonly pods = new Map<string, Pod>();
  readonly statuses = new Map<string, PodStatus>();
  readonly manager: ProberManager;

  constructor(random: () => number = () => 0) {
    const recorder: EventRecorder = {
      event: (_pod, type, reason, message, fieldPath) =>
        this.events.push({ type, reason, message, fieldPath }),
    };
    const netProber: NetProber = {
      http: (url) => {
        this.httpCalls.push(url);
        return this.http(url);
      },
      tcp: (host, port) => {
        this.tcpCalls.push(`${host}:${port}`);
        return this.tcp(host, port);
      },
    };
    this.manager = new ProberManager({
      cri: {
        execSync: (containerID, cmd, timeout) => {
          const call = { containerID, cmd, timeout, at: this.clock.now() };
          this.execCalls.push(call);
          return this.exec(call);
        },
      },
      clock: this.clock,
      trace: this.trace,
      recorder,
      netProber,
      random,
      getPod: (uid) => this.pods.get(uid),
      getStatus: (uid) => this.statuses.get(uid),
    });
    this.manager.onUpdate((u) => this.updates.push({ ...u, at: this.clock.now() }));
  }

  /** Registers the pod with one running container status per spec container and adds it to the manager. */
  addPod(pod: Pod, containerIDs: Record<string, string> = {}): void {
    const uid = pod.metadata.uid ?? '';
    this.pods.set(uid, pod);
    this.statuses.set(uid, {
      phase: 'Running',
      podIP: '10.88.0.5',
      containerStatuses: pod.spec.containers.map((c) =>
        runningStatus(
          c.name,
          containerIDs[c.name] ?? `containerd://${c.name}-1`,
          this.clock.now(),
          !c.startupProbe,
        ),
      ),
    });
    this.manager.addPod(pod);
  }

  status(uid = 'uid-1'): PodStatus {
    const s = this.statuses.get(uid);
    if (!s) throw new Error(`no status for ${uid}`);
    return s;
  }

  container(name: string, uid = 'uid-1'): ContainerStatus {
    const c = this.status(uid).containerStatuses?.find((x) => x.name === name);
    if (!c) throw new Error(`no status for ${name}`);
    return c;
  }

  /** Seconds since the harness clock started, of each ExecSync call. */
  execTimes(): number[] {
    return this.execCalls.map((c) => (c.at - this.start) / 1000);
  }

  readonly start = this.clock.now();
}
