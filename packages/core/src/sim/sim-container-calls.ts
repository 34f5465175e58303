// SimRuntime's container CRI calls and the launch of a container's program, as a part over its call context.
import {
  type Container,
  type ContainerConfig,
  type ContainerFilter,
  type ContainerStatusResponse,
  GrpcCode,
  type PodSandboxConfig,
} from '../cri/types.ts';
import {
  buildHost,
  containerArgv,
  containerEnv,
  resolveProgram,
  startErrorText,
} from './container-process.ts';
import { normalizeImageRef } from './images.ts';
import { containerView, listKey } from './list-views.ts';
import { CriLogWriter } from './log-writer.ts';
import { SignalBox } from './process.ts';
import { keyed, newId, type SimCallContext } from './sim-call-context.ts';
import {
  type ContainerRecord,
  containerState,
  matchLabels,
  newContainerRecord,
  type SandboxRecord,
  toContainerStatus,
} from './sim-state.ts';

/**
 * The simulated node's container CRI calls (CreateContainer, StartContainer, StopContainer,
 * RemoveContainer, ListContainers, ContainerStatus), answered as containerd 1.6 does, and the launch of a
 * started container's program. A part SimRuntime owns, over its shared call context.
 */
export class SimContainerCalls {
  constructor(private readonly sim: SimCallContext) {}

  async createContainer(
    sandboxId: string,
    config: ContainerConfig,
    _sandboxConfig: PodSandboxConfig,
  ): Promise<string> {
    await this.sim.call('CreateContainer');
    const sb = this.sim.store.sandboxes.get(sandboxId);
    if (!sb)
      throw this.sim.life.err(
        'CreateContainer',
        GrpcCode.NOT_FOUND,
        `failed to find sandbox id "${sandboxId}": not found`,
      );
    if (sb.notReady) {
      throw this.sim.life.err(
        'CreateContainer',
        GrpcCode.NOT_FOUND,
        `failed to get sandbox container task: no running task found: task ${sandboxId} not found: not found`,
      );
    }
    const cm = config.metadata;
    if (!cm)
      throw this.sim.life.err('CreateContainer', GrpcCode.UNKNOWN, 'container config must include metadata');
    const pm = sb.config.metadata;
    const name = `${cm.name}_${pm.name}_${pm.namespace}_${pm.uid}_${cm.attempt}`;
    const holder = this.sim.store.containerNames.get(name);
    if (holder)
      throw this.sim.life.err(
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
    const image = this.sim.images.local(spec);
    if (!image) {
      const p = spec.image.startsWith('sha256:') ? null : normalizeImageRef(spec.image);
      const shown = p?.ok ? p.ref : spec.image;
      throw this.sim.life.err(
        'CreateContainer',
        GrpcCode.NOT_FOUND,
        `failed to resolve image "${shown}": not found`,
      );
    }
    const id = newId();
    const record = { ...config, metadata: cm, image: spec };
    const c = newContainerRecord(id, name, sb, record, image, this.sim.clock.now());
    c.env = containerEnv(c, sb);
    this.sim.store.addContainer(c);
    this.sim.life.emit('CONTAINER_CREATED_EVENT', c);
    await this.sim.saved();
    return id;
  }

  async startContainer(id: string): Promise<void> {
    await this.sim.call('StartContainer');
    const c = this.sim.life.findContainer('StartContainer', id);
    const state = containerState(c);
    if (state !== 'CONTAINER_CREATED') {
      throw this.sim.life.err(
        'StartContainer',
        GrpcCode.UNKNOWN,
        `failed to set starting state for container "${id}": container is in ${state} state`,
      );
    }
    const sb = this.sim.store.sandboxes.get(c.sandboxId) as SandboxRecord;
    if (sb.notReady) return this.sim.life.failStart(c, `sandbox container "${sb.id}" is not running`);
    const argv = containerArgv(c);
    const found = resolveProgram(this.sim.deps, c, argv, c.env);
    if ('error' in found) return this.sim.life.failStart(c, startErrorText(found.error));
    c.startedAt = this.sim.clock.now();
    this.sim.life.emit('CONTAINER_STARTED_EVENT', c);
    this.launch(c, sb);
    await this.sim.saved();
  }

  /**
   * Runs a started container's program (startedAt set): its log opened for appending, its signals and
   * kill switch made; an exit is recorded by the lifecycle. A program not found exits 127 at once.
   */
  launch(c: ContainerRecord, sb: SandboxRecord): void {
    const argv = containerArgv(c);
    const found = resolveProgram(this.sim.deps, c, argv, c.env);
    const kill = new AbortController();
    const signals = new SignalBox();
    let log: CriLogWriter | null = null;
    if (c.logPath) {
      try {
        log = new CriLogWriter(c.logPath, this.sim.clock);
      } catch {
        log = null;
      }
    }
    c.proc = { kill, signals, log };
    if ('error' in found) {
      this.sim.life.finish(c, 127);
      return;
    }
    const io = {
      out: (s: string) => log?.write('stdout', s),
      err: (s: string) => log?.write('stderr', s),
      stdin: '',
    };
    const host = buildHost(this.sim.deps, c, sb, kill.signal);
    found.program(argv, { host, io, env: new Map(c.env), signals }).then(
      (code) => this.sim.life.finish(c, code),
      (e: unknown) => {
        if (kill.signal.aborted) return;
        io.err(`sim: ${e instanceof Error ? e.message : String(e)}\n`);
        this.sim.life.finish(c, 1);
      },
    );
  }

  async stopContainer(id: string, timeout: number): Promise<void> {
    await this.sim.call('StopContainer');
    await this.sim.life.stopContainer(this.sim.life.findContainer('StopContainer', id), timeout);
    await this.sim.saved();
  }

  /** Idempotent, as containerd's CRI is: an unknown ID is no error (ContainerStatus of it is NotFound). */
  async removeContainer(id: string): Promise<void> {
    await this.sim.call('RemoveContainer');
    const c = this.sim.store.containers.get(id);
    if (!c) return;
    this.sim.life.kill(c);
    this.sim.life.deleteContainer(c);
    await this.sim.saved();
  }

  async listContainers(filter?: ContainerFilter): Promise<Container[]> {
    await this.sim.call('ListContainers');
    const out: Container[] = [];
    for (const c of this.sim.store.containerCandidates(filter)) {
      if (filter?.id && c.id !== filter.id) continue;
      if (filter?.pod_sandbox_id && c.sandboxId !== filter.pod_sandbox_id) continue;
      if (filter?.state && containerState(c) !== filter.state.state) continue;
      if (!matchLabels(c.config.labels, filter?.label_selector)) continue;
      out.push(containerView(c));
    }
    return this.sim.lists.answer(keyed('containers', listKey(filter)), out);
  }

  async containerStatus(id: string): Promise<ContainerStatusResponse> {
    await this.sim.call('ContainerStatus');
    return { status: toContainerStatus(this.sim.life.findContainer('ContainerStatus', id)), info: {} };
  }
}
