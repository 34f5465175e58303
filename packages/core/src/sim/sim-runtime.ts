import type { Clock } from '../clock/clock.ts';
import {
  type Container,
  type ContainerConfig,
  type ContainerEventResponse,
  type ContainerEventStream,
  type ContainerFilter,
  type ContainerStatusResponse,
  CriError,
  type CriRuntime,
  type ExecSyncResponse,
  GrpcCode,
  type Image,
  type ImageFilter,
  type ImageSpec,
  type ImageStatusResponse,
  type PodSandbox,
  type PodSandboxConfig,
  type PodSandboxFilter,
  type PodSandboxStatusResponse,
  type PullImageResponse,
  type StatusResponse,
  type VersionResponse,
} from '../cri/types.ts';
import type { ProcessDeps } from './container-process.ts';
import { Faults } from './faults.ts';
import { ImageCatalogue } from './images.ts';
import { ListAnswers } from './list-views.ts';
import { SimNetwork } from './network.ts';
import type { ListenerKind } from './process.ts';
import { defaultPrograms } from './programs.ts';
import type { SimCallContext } from './sim-call-context.ts';
import { SimContainerAccess } from './sim-container-access.ts';
import { SimContainerCalls } from './sim-container-calls.ts';
import { simFaultHooks } from './sim-fault-hooks.ts';
import { SimImageCalls } from './sim-image-calls.ts';
import { SimLifecycle } from './sim-lifecycle.ts';
import { readSimState, SimStateFile, snapshotOf } from './sim-persist.ts';
import { adoptSimState, type SimRuntimeOptions } from './sim-runtime-setup.ts';
import { SimSandboxCalls } from './sim-sandbox-calls.ts';
import { SimStore } from './sim-store.ts';

export { CONTAINERD_LATENCY_MS, type SimRuntimeOptions } from './sim-runtime-setup.ts';

/**
 * An in-process container runtime that answers the CRI as containerd 1.6 does (as observed: the
 * same states, exit codes, reasons, gRPC codes and error texts). Containers run programs from
 * interpreter.ts/programs.ts as async tasks on the injected clock, so a FakeClock drives a 300 s grace
 * period instantly and a RealClock with a speed factor runs the node faster than real time.
 *
 * Callers: the engine directly (tests), or through the gRPC server (sim-node.ts). Methods never block
 * except on the clock: StopContainer waits up to its timeout for the exit, PullImage for the pull delay,
 * ExecSync for the command. Log files are real files (node:fs), written synchronously as programs print.
 *
 * Built from parts it owns: the records and event fan-out (SimStore), how containers end (SimLifecycle),
 * the pod network (SimNetwork), the image catalogue and the fault layer (Faults, on simFaultHooks); the
 * CRI calls are answered by parts over one shared call context (sim-call-context.ts): runtime info and
 * sandboxes (SimSandboxCalls), containers (SimContainerCalls), exec, log reopening and the probe-side view
 * (SimContainerAccess), and images (SimImageCalls).
 */
export class SimRuntime implements CriRuntime {
  readonly clock: Clock;
  readonly images: ImageCatalogue;
  readonly net: SimNetwork;
  readonly faults: Faults;
  private readonly store = new SimStore();
  private readonly life: SimLifecycle;
  private readonly deps: ProcessDeps;
  private readonly latency: Partial<Record<string, number>>;
  private readonly lists = new ListAnswers();
  private readonly stateFile: SimStateFile | undefined;
  private stateRemoved: Promise<void> = Promise.resolve();
  private readonly sandboxCalls: SimSandboxCalls;
  private readonly containerCalls: SimContainerCalls;
  private readonly access: SimContainerAccess;
  private readonly imageCalls: SimImageCalls;

  constructor(opts: SimRuntimeOptions) {
    this.clock = opts.clock;
    this.images = opts.images ?? new ImageCatalogue();
    this.net = new SimNetwork(opts.podCidr ?? '10.88.0.0/16', opts.nodeIP);
    this.life = new SimLifecycle(opts.clock, this.store, this.net);
    this.latency = opts.callLatencyMs ?? {};
    this.deps = { clock: opts.clock, net: this.net, programs: opts.programs ?? defaultPrograms() };
    this.faults = new Faults(opts.clock, simFaultHooks(this.store, this.life, this.images));
    const sim: SimCallContext = {
      clock: this.clock,
      store: this.store,
      life: this.life,
      net: this.net,
      images: this.images,
      deps: this.deps,
      lists: this.lists,
      call: (method) => this.call(method),
      saved: () => this.saved(),
    };
    this.sandboxCalls = new SimSandboxCalls(sim);
    this.containerCalls = new SimContainerCalls(sim);
    this.access = new SimContainerAccess(sim);
    this.imageCalls = new SimImageCalls(sim);
    if (opts.statePath !== undefined) {
      const warn = opts.warn ?? ((msg: string) => console.warn(msg));
      const saved = readSimState(opts.statePath, warn);
      if (saved) adoptSimState(saved, sim, (c, sb) => this.containerCalls.launch(c, sb));
      const file = new SimStateFile(
        opts.statePath,
        () => snapshotOf(this.store, this.images.listLocal()),
        warn,
      );
      this.store.onChange = () => file.changed();
      this.stateFile = file;
    }
  }

  /** Resolves once the node's records as of now are on disk (at once without a state file). */
  private saved(): Promise<void> {
    return this.stateFile?.saved() ?? Promise.resolve();
  }

  /** Every CRI method starts here: injected faults, then the configured latency. */
  private async call(method: string): Promise<void> {
    await this.faults.gate(method);
    const ms = this.latency[method];
    if (ms) await this.clock.sleep(ms);
  }

  // --- runtime info and sandboxes (sim-sandbox-calls.ts) -----------------------------------------------

  version(): Promise<VersionResponse> {
    return this.sandboxCalls.version();
  }
  status(): Promise<StatusResponse> {
    return this.sandboxCalls.status();
  }
  runPodSandbox(config: PodSandboxConfig): Promise<string> {
    return this.sandboxCalls.runPodSandbox(config);
  }
  stopPodSandbox(id: string): Promise<void> {
    return this.sandboxCalls.stopPodSandbox(id);
  }
  removePodSandbox(id: string): Promise<void> {
    return this.sandboxCalls.removePodSandbox(id);
  }
  podSandboxStatus(id: string): Promise<PodSandboxStatusResponse> {
    return this.sandboxCalls.podSandboxStatus(id);
  }
  listPodSandbox(filter?: PodSandboxFilter): Promise<PodSandbox[]> {
    return this.sandboxCalls.listPodSandbox(filter);
  }

  // --- containers (sim-container-calls.ts, sim-container-access.ts) --------------------------------------

  createContainer(
    sandboxId: string,
    config: ContainerConfig,
    sandboxConfig: PodSandboxConfig,
  ): Promise<string> {
    return this.containerCalls.createContainer(sandboxId, config, sandboxConfig);
  }
  startContainer(id: string): Promise<void> {
    return this.containerCalls.startContainer(id);
  }
  stopContainer(id: string, timeout: number): Promise<void> {
    return this.containerCalls.stopContainer(id, timeout);
  }
  removeContainer(id: string): Promise<void> {
    return this.containerCalls.removeContainer(id);
  }
  listContainers(filter?: ContainerFilter): Promise<Container[]> {
    return this.containerCalls.listContainers(filter);
  }
  containerStatus(id: string): Promise<ContainerStatusResponse> {
    return this.containerCalls.containerStatus(id);
  }
  execSync(id: string, cmd: string[], timeout: number, stdin = ''): Promise<ExecSyncResponse> {
    return this.access.execSync(id, cmd, timeout, stdin);
  }
  reopenContainerLog(id: string): Promise<void> {
    return this.access.reopenContainerLog(id);
  }

  getContainerEvents(
    onEvent: (ev: ContainerEventResponse) => void,
    onEnd: (err?: Error) => void,
  ): ContainerEventStream {
    try {
      this.faults.check('GetContainerEvents');
    } catch (e) {
      queueMicrotask(() => onEnd(e as Error));
      return { cancel: () => undefined };
    }
    return this.store.subscribe(onEvent, onEnd);
  }

  // --- probe-side view (sim-container-access.ts) --------------------------------------------------------

  isListening(containerId: string, port: number): boolean {
    return this.access.isListening(containerId, port);
  }
  listeningPorts(containerId: string): { port: number; kind: ListenerKind }[] {
    return this.access.listeningPorts(containerId);
  }
  httpGet(host: string, port: number, path = '/'): Promise<number> {
    return this.access.httpGet(host, port, path);
  }
  tcpConnect(host: string, port: number): Promise<void> {
    return this.access.tcpConnect(host, port);
  }
  whenExited(containerId: string): Promise<void> {
    return this.access.whenExited(containerId);
  }
  podIP(sandboxId: string): string {
    return this.access.podIP(sandboxId);
  }

  // --- images (sim-image-calls.ts) -----------------------------------------------------------------------

  imageStatus(image: ImageSpec): Promise<ImageStatusResponse> {
    return this.imageCalls.imageStatus(image);
  }
  pullImage(image: ImageSpec): Promise<PullImageResponse> {
    return this.imageCalls.pullImage(image);
  }
  listImages(filter?: ImageFilter): Promise<Image[]> {
    return this.imageCalls.listImages(filter);
  }
  removeImage(image: ImageSpec): Promise<void> {
    return this.imageCalls.removeImage(image);
  }

  /**
   * The node goes away: every container is killed, every event stream ends, and its state file is removed
   * (whenStateRemoved), so a node started again on it starts empty, as after a reboot; with `keepState`
   * (another node has taken the directory over and adopted the file) the file is left as it is.
   */
  shutdown(opts: { keepState?: boolean } = {}): void {
    if (opts.keepState) this.stateFile?.abandon();
    else if (this.stateFile) this.stateRemoved = this.stateFile.remove();
    for (const c of this.store.containers.values()) this.life.kill(c);
    this.store.breakStreams(new CriError('GetContainerEvents', GrpcCode.UNAVAILABLE, 'Connection dropped'));
  }

  /** Resolves once shutdown() has removed the state file (at once without one). */
  whenStateRemoved(): Promise<void> {
    return this.stateRemoved;
  }
}
