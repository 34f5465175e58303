import { randomBytes } from 'node:crypto';
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
import {
  buildHost,
  containerArgv,
  containerEnv,
  execInContainer,
  type ProcessDeps,
  resolveProgram,
  startErrorText,
} from './container-process.ts';
import { Faults } from './faults.ts';
import { ImageCatalogue, normalizeImageRef, pullFailureText } from './images.ts';
import { containerView, ListAnswers, listKey, podSandboxView } from './list-views.ts';
import { CriLogWriter } from './log-writer.ts';
import { HOST_NETNS, SimNetwork } from './network.ts';
import { type ListenerKind, type Program, SignalBox } from './process.ts';
import { defaultPrograms } from './programs.ts';
import { simFaultHooks } from './sim-fault-hooks.ts';
import { SimLifecycle } from './sim-lifecycle.ts';
import { adoptedContainer, readSimState, type SimState, SimStateFile, snapshotOf } from './sim-persist.ts';
import {
  type ContainerRecord,
  containerState,
  matchLabels,
  newContainerRecord,
  type SandboxRecord,
  sandboxState,
  toContainerStatus,
  toPodSandboxStatus,
} from './sim-state.ts';
import { SimStore } from './sim-store.ts';

export interface SimRuntimeOptions {
  clock: Clock;
  images?: ImageCatalogue;
  /** Pod IPs come from here; default 10.88.0.0/16. */
  podCidr?: string;
  /** The node's address (host-network pods listen here); default 192.0.2.2. */
  nodeIP?: string;
  /** Extra clock time per CRI method before it acts (see CONTAINERD_LATENCY_MS); none by default. */
  callLatencyMs?: Partial<Record<string, number>>;
  /** Programs by executable basename; default defaultPrograms(). */
  programs?: Map<string, Program>;
  /**
   * Where the node keeps its records (sim-persist.ts): read at construction, so a node started again on
   * the same file goes on with the sandboxes and containers it had; none kept without it.
   */
  statePath?: string;
  /** Reports a state file that cannot be read or written (default console.warn). */
  warn?: (msg: string) => void;
}

/** Median latencies measured of containerd 1.6 on a 2-vCPU VM, for a lifelike node. */
export const CONTAINERD_LATENCY_MS: Partial<Record<string, number>> = {
  RunPodSandbox: 60,
  StopPodSandbox: 45,
  RemovePodSandbox: 10,
  CreateContainer: 6,
  StartContainer: 45,
  RemoveContainer: 3,
  ExecSync: 20,
};

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
 * the pod network (SimNetwork), the image catalogue and the fault layer (Faults, on simFaultHooks).
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

  constructor(opts: SimRuntimeOptions) {
    this.clock = opts.clock;
    this.images = opts.images ?? new ImageCatalogue();
    this.net = new SimNetwork(opts.podCidr ?? '10.88.0.0/16', opts.nodeIP);
    this.life = new SimLifecycle(opts.clock, this.store, this.net);
    this.latency = opts.callLatencyMs ?? {};
    this.deps = { clock: opts.clock, net: this.net, programs: opts.programs ?? defaultPrograms() };
    this.faults = new Faults(opts.clock, simFaultHooks(this.store, this.life, this.images));
    if (opts.statePath !== undefined) {
      const warn = opts.warn ?? ((msg: string) => console.warn(msg));
      const saved = readSimState(opts.statePath, warn);
      if (saved) this.adopt(saved);
      const file = new SimStateFile(
        opts.statePath,
        () => snapshotOf(this.store, this.images.listLocal()),
        warn,
      );
      this.store.onChange = () => file.changed();
      this.stateFile = file;
    }
  }

  /** Takes back the records a node left (sim-persist.ts): running containers run on under their IDs. */
  private adopt(state: SimState): void {
    for (const ref of state.images) this.images.markPresent(ref);
    this.store.networkReady = state.networkReady;
    for (const saved of state.sandboxes) {
      const sb = { ...saved };
      if (sb.ip && !this.net.reserve(sb.ip, sb.netns)) sb.ip = '';
      this.store.addSandbox(sb);
    }
    for (const saved of state.containers) {
      const sb = this.store.sandboxes.get(saved.sandboxId);
      if (!sb) continue;
      const c = adoptedContainer(saved, sb);
      this.store.addContainer(c);
      if (c.finishedAt) c.markExited();
      else if (c.startedAt) this.launch(c, sb);
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

  // --- runtime info ------------------------------------------------------------------------------------

  async version(): Promise<VersionResponse> {
    await this.call('Version');
    return {
      version: '0.1.0',
      runtime_name: 'syncscope-sim',
      runtime_version: '0.1.0',
      runtime_api_version: 'v1',
    };
  }

  async status(): Promise<StatusResponse> {
    await this.call('Status');
    const net = this.store.networkReady;
    return {
      status: {
        conditions: [
          { type: 'RuntimeReady', status: true, reason: '', message: '' },
          {
            type: 'NetworkReady',
            status: net,
            reason: net ? '' : 'NetworkPluginNotReady',
            message: net ? '' : 'Network plugin returns error: cni plugin not initialized',
          },
        ],
      },
      info: {},
    };
  }

  // --- sandboxes ---------------------------------------------------------------------------------------

  async runPodSandbox(config: PodSandboxConfig): Promise<string> {
    await this.call('RunPodSandbox');
    const m = config.metadata;
    // containerd names the sandbox from its metadata and refuses a config without one.
    if (!m) throw this.life.err('RunPodSandbox', GrpcCode.UNKNOWN, 'sandbox config must include metadata');
    const name = `${m.name}_${m.namespace}_${m.uid}_${m.attempt}`;
    const holder = this.store.sandboxNames.get(name);
    if (holder)
      throw this.life.err(
        'RunPodSandbox',
        GrpcCode.UNKNOWN,
        `failed to reserve sandbox name "${name}": name "${name}" is reserved for "${holder}"`,
      );
    const hostNetwork = config.linux?.security_context?.namespace_options?.network === 'NODE';
    if (hostNetwork && config.hostname) {
      throw this.life.err(
        'RunPodSandbox',
        GrpcCode.UNKNOWN,
        startErrorText('unable to set hostname without a private UTS namespace').replace(
          'unable to start container process: ',
          '',
        ),
      );
    }
    const id = newId();
    const sb: SandboxRecord = {
      id,
      config: { ...config, metadata: m },
      createdAt: this.clock.now(),
      notReady: false,
      hostNetwork,
      ip: '',
      netns: hostNetwork ? HOST_NETNS : id,
      name,
    };
    this.store.addSandbox(sb);
    if (!hostNetwork) {
      if (!this.store.networkReady) {
        // containerd keeps the failed sandbox (NOTREADY); the kubelet has to stop and remove it.
        sb.notReady = true;
        throw this.life.err(
          'RunPodSandbox',
          GrpcCode.UNKNOWN,
          `failed to setup network for sandbox "${id}": cni plugin not initialized`,
        );
      }
      sb.ip = this.net.allocate(id);
    }
    await this.saved();
    return id;
  }

  async stopPodSandbox(id: string): Promise<void> {
    await this.call('StopPodSandbox');
    const sb = this.store.sandboxes.get(id);
    if (!sb)
      throw this.life.err(
        'StopPodSandbox',
        GrpcCode.NOT_FOUND,
        `an error occurred when try to find sandbox "${id}": not found`,
      );
    this.life.stopSandbox(sb);
    await this.saved();
  }

  async removePodSandbox(id: string): Promise<void> {
    await this.call('RemovePodSandbox');
    const sb = this.store.sandboxes.get(id);
    if (!sb) return;
    if (!sb.notReady || sb.ip) this.life.stopSandbox(sb);
    for (const c of this.store.containersOf(id)) this.life.deleteContainer(c);
    this.store.dropSandbox(sb);
    await this.saved();
  }

  async podSandboxStatus(id: string): Promise<PodSandboxStatusResponse> {
    await this.call('PodSandboxStatus');
    const sb = this.store.sandboxes.get(id);
    if (!sb)
      throw this.life.err(
        'PodSandboxStatus',
        GrpcCode.NOT_FOUND,
        'an error occurred when try to find sandbox: not found',
      );
    return { status: toPodSandboxStatus(sb), info: {}, containers_statuses: [], timestamp: '0' };
  }

  async listPodSandbox(filter?: PodSandboxFilter): Promise<PodSandbox[]> {
    await this.call('ListPodSandbox');
    const out: PodSandbox[] = [];
    for (const s of this.store.sandboxCandidates(filter)) {
      if (filter?.state && sandboxState(s) !== filter.state.state) continue;
      if (!matchLabels(s.config.labels, filter?.label_selector)) continue;
      out.push(podSandboxView(s));
    }
    return this.lists.answer(keyed('sandboxes', listKey(filter)), out);
  }

  // --- containers --------------------------------------------------------------------------------------

  async createContainer(
    sandboxId: string,
    config: ContainerConfig,
    _sandboxConfig: PodSandboxConfig,
  ): Promise<string> {
    await this.call('CreateContainer');
    const sb = this.store.sandboxes.get(sandboxId);
    if (!sb)
      throw this.life.err(
        'CreateContainer',
        GrpcCode.NOT_FOUND,
        `failed to find sandbox id "${sandboxId}": not found`,
      );
    if (sb.notReady) {
      throw this.life.err(
        'CreateContainer',
        GrpcCode.NOT_FOUND,
        `failed to get sandbox container task: no running task found: task ${sandboxId} not found: not found`,
      );
    }
    const cm = config.metadata;
    if (!cm)
      throw this.life.err('CreateContainer', GrpcCode.UNKNOWN, 'container config must include metadata');
    const pm = sb.config.metadata;
    const name = `${cm.name}_${pm.name}_${pm.namespace}_${pm.uid}_${cm.attempt}`;
    const holder = this.store.containerNames.get(name);
    if (holder)
      throw this.life.err(
        'CreateContainer',
        GrpcCode.UNKNOWN,
        `failed to reserve container name "${name}": name "${name}" is reserved for "${holder}"`,
      );
    // An unset image spec is resolved as the empty name, as containerd reads it.
    const spec = config.image ?? {
      image: '',
      annotations: {},
      user_specified_image: '',
      runtime_handler: '',
    };
    const image = this.images.local(spec);
    if (!image) {
      const p = spec.image.startsWith('sha256:') ? null : normalizeImageRef(spec.image);
      const shown = p?.ok ? p.ref : spec.image;
      throw this.life.err(
        'CreateContainer',
        GrpcCode.NOT_FOUND,
        `failed to resolve image "${shown}": not found`,
      );
    }
    const id = newId();
    const record = { ...config, metadata: cm, image: spec };
    const c = newContainerRecord(id, name, sb, record, image, this.clock.now());
    c.env = containerEnv(c, sb);
    this.store.addContainer(c);
    this.life.emit('CONTAINER_CREATED_EVENT', c);
    await this.saved();
    return id;
  }

  async startContainer(id: string): Promise<void> {
    await this.call('StartContainer');
    const c = this.life.findContainer('StartContainer', id);
    const state = containerState(c);
    if (state !== 'CONTAINER_CREATED') {
      throw this.life.err(
        'StartContainer',
        GrpcCode.UNKNOWN,
        `failed to set starting state for container "${id}": container is in ${state} state`,
      );
    }
    const sb = this.store.sandboxes.get(c.sandboxId) as SandboxRecord;
    if (sb.notReady) return this.life.failStart(c, `sandbox container "${sb.id}" is not running`);
    const argv = containerArgv(c);
    const found = resolveProgram(this.deps, c, argv, c.env);
    if ('error' in found) return this.life.failStart(c, startErrorText(found.error));
    c.startedAt = this.clock.now();
    this.life.emit('CONTAINER_STARTED_EVENT', c);
    this.launch(c, sb);
    await this.saved();
  }

  /**
   * Runs a started container's program (startedAt set): its log opened for appending, its signals and
   * kill switch made; an exit is recorded by the lifecycle. A program not found exits 127 at once.
   */
  private launch(c: ContainerRecord, sb: SandboxRecord): void {
    const argv = containerArgv(c);
    const found = resolveProgram(this.deps, c, argv, c.env);
    const kill = new AbortController();
    const signals = new SignalBox();
    let log: CriLogWriter | null = null;
    if (c.logPath) {
      try {
        log = new CriLogWriter(c.logPath, this.clock);
      } catch {
        log = null;
      }
    }
    c.proc = { kill, signals, log };
    if ('error' in found) {
      this.life.finish(c, 127);
      return;
    }
    const io = {
      out: (s: string) => log?.write('stdout', s),
      err: (s: string) => log?.write('stderr', s),
      stdin: '',
    };
    const host = buildHost(this.deps, c, sb, kill.signal);
    found.program(argv, { host, io, env: new Map(c.env), signals }).then(
      (code) => this.life.finish(c, code),
      (e: unknown) => {
        if (kill.signal.aborted) return;
        io.err(`sim: ${e instanceof Error ? e.message : String(e)}\n`);
        this.life.finish(c, 1);
      },
    );
  }

  async stopContainer(id: string, timeout: number): Promise<void> {
    await this.call('StopContainer');
    await this.life.stopContainer(this.life.findContainer('StopContainer', id), timeout);
    await this.saved();
  }

  /** Idempotent, as containerd's CRI is: an unknown ID is no error (ContainerStatus of it is NotFound). */
  async removeContainer(id: string): Promise<void> {
    await this.call('RemoveContainer');
    const c = this.store.containers.get(id);
    if (!c) return;
    this.life.kill(c);
    this.life.deleteContainer(c);
    await this.saved();
  }

  async listContainers(filter?: ContainerFilter): Promise<Container[]> {
    await this.call('ListContainers');
    const out: Container[] = [];
    for (const c of this.store.containerCandidates(filter)) {
      if (filter?.id && c.id !== filter.id) continue;
      if (filter?.pod_sandbox_id && c.sandboxId !== filter.pod_sandbox_id) continue;
      if (filter?.state && containerState(c) !== filter.state.state) continue;
      if (!matchLabels(c.config.labels, filter?.label_selector)) continue;
      out.push(containerView(c));
    }
    return this.lists.answer(keyed('containers', listKey(filter)), out);
  }

  async containerStatus(id: string): Promise<ContainerStatusResponse> {
    await this.call('ContainerStatus');
    return { status: toContainerStatus(this.life.findContainer('ContainerStatus', id)), info: {} };
  }

  /** ExecSync; `stdin` (beyond the CRI's) is what the command reads, whole: the node's streaming exec. */
  async execSync(id: string, cmd: string[], timeout: number, stdin = ''): Promise<ExecSyncResponse> {
    await this.call('ExecSync');
    const c = this.store.containers.get(id);
    if (!c)
      throw this.life.err(
        'ExecSync',
        GrpcCode.NOT_FOUND,
        `failed to exec in container: failed to find container "${id}" in store: not found`,
      );
    const state = containerState(c);
    if (state !== 'CONTAINER_RUNNING')
      throw this.life.err(
        'ExecSync',
        GrpcCode.UNKNOWN,
        `failed to exec in container: container is in ${state} state`,
      );
    const sb = this.store.sandboxes.get(c.sandboxId) as SandboxRecord;
    const r = await execInContainer(this.deps, c, sb, cmd, timeout, newId(), stdin);
    return { stdout: Buffer.from(r.stdout), stderr: Buffer.from(r.stderr), exit_code: r.exitCode };
  }

  /** containerd's ReopenContainerLog: a new log file at the container's log path, for a running container. */
  async reopenContainerLog(id: string): Promise<void> {
    await this.call('ReopenContainerLog');
    const c = this.store.containers.get(id);
    if (!c)
      throw this.life.err(
        'ReopenContainerLog',
        GrpcCode.NOT_FOUND,
        `an error occurred when try to find container "${id}": not found`,
      );
    if (containerState(c) !== 'CONTAINER_RUNNING' || !c.proc)
      throw this.life.err('ReopenContainerLog', GrpcCode.UNKNOWN, 'container is not running');
    try {
      c.proc.log?.reopen();
    } catch (e) {
      throw this.life.err(
        'ReopenContainerLog',
        GrpcCode.UNKNOWN,
        `failed to create and open log files: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
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

  // --- probe-side view (tests and the node view; never blocks but for the pod network's answer) ---------

  /** Whether a process of this container has `port` bound. */
  isListening(containerId: string, port: number): boolean {
    return this.net.listenersOf(containerId).some((l) => l.port === port);
  }

  listeningPorts(containerId: string): { port: number; kind: ListenerKind }[] {
    return this.net.listenersOf(containerId);
  }

  /** HTTP GET from the node to `host:port` (a pod IP, or the node IP for host-network pods) → status code. */
  async httpGet(host: string, port: number, path = '/'): Promise<number> {
    return (await this.net.httpGet(host, port, path)).status;
  }

  /** TCP connect from the node; rejects with "connect: connection refused" when nothing listens. */
  tcpConnect(host: string, port: number): Promise<void> {
    return this.net.connect(host, port);
  }

  /** Resolves when the container has exited (at once if it has); rejects for an unknown id. */
  whenExited(containerId: string): Promise<void> {
    const c = this.store.containers.get(containerId);
    return c ? c.exited : Promise.reject(new Error(`no container ${containerId}`));
  }

  /** The pod IP of a sandbox ('' for host network or stopped), for probes. */
  podIP(sandboxId: string): string {
    return this.store.sandboxes.get(sandboxId)?.ip ?? '';
  }

  // --- images ------------------------------------------------------------------------------------------

  async imageStatus(image: ImageSpec): Promise<ImageStatusResponse> {
    await this.call('ImageStatus');
    const d = this.images.local(image);
    return { image: d ? this.images.toCri(d) : null, info: {} };
  }

  async pullImage(image: ImageSpec): Promise<PullImageResponse> {
    await this.call('PullImage');
    const p = normalizeImageRef(image.image);
    if (!p.ok) throw this.life.err('PullImage', GrpcCode.UNKNOWN, p.error);
    const def = this.images.inRegistry(p.ref);
    if (!def)
      throw this.life.err('PullImage', GrpcCode.UNKNOWN, pullFailureText(p.ref, p.host, p.path, p.tag));
    if (def.pullDelayMs > 0) await this.clock.sleep(def.pullDelayMs);
    this.images.markPresent(def.ref);
    return { image_ref: def.id };
  }

  async listImages(filter?: ImageFilter): Promise<Image[]> {
    await this.call('ListImages');
    const only = filter?.image?.image ? this.images.local(filter.image) : undefined;
    if (filter?.image?.image && !only) return [];
    return (only ? [only] : this.images.listLocal()).map((d) => this.images.toCri(d));
  }

  async removeImage(image: ImageSpec): Promise<void> {
    await this.call('RemoveImage');
    this.images.removeLocal(image);
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

function keyed(kind: string, key: string | undefined): string | undefined {
  return key === undefined ? undefined : `${kind} ${key}`;
}

function newId(): string {
  return randomBytes(32).toString('hex');
}
