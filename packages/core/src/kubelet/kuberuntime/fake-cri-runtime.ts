/**
 * An in-memory CriRuntime for unit tests of the runtime manager (modelled on cri-api's
 * fake_runtime_service.go): records every call in order, fails the next call of a method with an injected
 * error, and lets a test make a container exit. Images: `present` are in the store, `registry` can be pulled.
 * Not the simulated node (src/sim), which runs real container programs.
 */
import type { PassiveClock } from '../../clock/clock.ts';
import {
  type Container,
  type ContainerConfig,
  type ContainerFilter,
  type ContainerStatus,
  CriError,
  type CriRuntime,
  GrpcCode,
  type Image,
  type ImageSpec,
  msToNs,
  type PodSandboxConfig,
  type PodSandboxFilter,
  type PodSandboxStatus,
} from '../../cri/types.ts';

export class FakeCriRuntime implements CriRuntime {
  readonly called: string[] = [];
  readonly calls: { method: string; args: unknown[] }[] = [];
  readonly sandboxes = new Map<string, PodSandboxStatus & { config: PodSandboxConfig }>();
  readonly containers = new Map<string, ContainerStatus & { config: ContainerConfig; sandboxId: string }>();
  readonly present = new Map<string, number>(); // image → size
  readonly registry = new Set<string>();
  private readonly errors = new Map<string, Error[]>();
  private nextId = 1;

  constructor(private readonly clock: PassiveClock) {}

  injectError(
    method: string,
    err: Error = new CriError(method, GrpcCode.UNKNOWN, `injected ${method} failure`),
  ): void {
    const q = this.errors.get(method) ?? [];
    q.push(err);
    this.errors.set(method, q);
  }

  /** Makes a running container exit now. */
  exit(id: string, exitCode: number): void {
    const c = this.mustContainer('exit', id);
    c.state = 'CONTAINER_EXITED';
    c.exit_code = exitCode;
    c.finished_at = msToNs(this.clock.now());
    c.reason = exitCode === 0 ? 'Completed' : 'Error';
  }

  containersNamed(name: string): (ContainerStatus & { config: ContainerConfig })[] {
    return [...this.containers.values()].filter((c) => c.metadata?.name === name);
  }

  private enter(method: string, ...args: unknown[]): void {
    this.called.push(method);
    this.calls.push({ method, args });
    const err = this.errors.get(method)?.shift();
    if (err) throw err;
  }

  private mustContainer(method: string, id: string) {
    const c = this.containers.get(id);
    if (!c)
      throw new CriError(
        method,
        GrpcCode.NOT_FOUND,
        `an error occurred when try to find container "${id}": not found`,
      );
    return c;
  }

  async version() {
    this.enter('Version');
    return { version: '0.1.0', runtime_name: 'fake', runtime_version: '1', runtime_api_version: 'v1' };
  }

  async status() {
    this.enter('Status');
    return { status: { conditions: [] }, info: {} };
  }

  async runPodSandbox(config: PodSandboxConfig): Promise<string> {
    this.enter('RunPodSandbox', config);
    const id = `sb${this.nextId++}`;
    const hostNet = config.linux?.security_context?.namespace_options?.network === 'NODE';
    this.sandboxes.set(id, {
      id,
      metadata: config.metadata,
      state: 'SANDBOX_READY',
      created_at: msToNs(this.clock.now()),
      network: { ip: hostNet ? '' : `10.88.0.${this.nextId}`, additional_ips: [] },
      linux: { namespaces: { options: config.linux?.security_context?.namespace_options ?? null } },
      labels: config.labels,
      annotations: config.annotations,
      runtime_handler: '',
      config,
    });
    return id;
  }

  async stopPodSandbox(id: string) {
    this.enter('StopPodSandbox', id);
    const s = this.sandboxes.get(id);
    if (!s) return;
    s.state = 'SANDBOX_NOTREADY';
    for (const c of this.containers.values()) {
      if (c.sandboxId === id && c.state === 'CONTAINER_RUNNING') {
        c.state = 'CONTAINER_EXITED';
        c.exit_code = 137;
        c.finished_at = msToNs(this.clock.now());
      }
    }
  }

  async removePodSandbox(id: string) {
    this.enter('RemovePodSandbox', id);
    this.sandboxes.delete(id);
  }

  async podSandboxStatus(id: string) {
    this.enter('PodSandboxStatus', id);
    const s = this.sandboxes.get(id);
    if (!s) throw new CriError('PodSandboxStatus', GrpcCode.NOT_FOUND, `sandbox "${id}" not found`);
    const { config: _c, ...status } = s;
    return { status, info: {}, containers_statuses: [], timestamp: '0' };
  }

  async listPodSandbox(filter?: PodSandboxFilter) {
    this.enter('ListPodSandbox', filter);
    return [...this.sandboxes.values()]
      .filter((s) => !filter?.state || s.state === filter.state.state)
      .filter((s) => matches(s.labels, filter?.label_selector))
      .map((s) => ({
        id: s.id,
        metadata: s.metadata,
        state: s.state,
        created_at: s.created_at,
        labels: s.labels,
        annotations: s.annotations,
        runtime_handler: '',
      }));
  }

  async createContainer(sandboxId: string, config: ContainerConfig, _sc: PodSandboxConfig): Promise<string> {
    this.enter('CreateContainer', sandboxId, config);
    const id = `c${this.nextId++}`;
    this.containers.set(id, {
      id,
      metadata: config.metadata,
      state: 'CONTAINER_CREATED',
      created_at: msToNs(this.clock.now()),
      started_at: '0',
      finished_at: '0',
      exit_code: 0,
      image: config.image,
      image_ref: config.image?.image ?? '',
      reason: '',
      message: '',
      labels: config.labels,
      annotations: config.annotations,
      mounts: [],
      log_path: config.log_path,
      resources: null,
      image_id: '',
      config,
      sandboxId,
    });
    return id;
  }

  async startContainer(id: string) {
    this.enter('StartContainer', id);
    const c = this.mustContainer('StartContainer', id);
    c.state = 'CONTAINER_RUNNING';
    c.started_at = msToNs(this.clock.now());
  }

  async stopContainer(id: string, timeout: number) {
    this.enter('StopContainer', id, timeout);
    const c = this.mustContainer('StopContainer', id);
    if (c.state === 'CONTAINER_RUNNING') {
      c.state = 'CONTAINER_EXITED';
      c.exit_code = 143;
      c.reason = 'Error';
      c.finished_at = msToNs(this.clock.now());
    }
  }

  async removeContainer(id: string) {
    this.enter('RemoveContainer', id);
    this.containers.delete(id);
  }

  async listContainers(filter?: ContainerFilter): Promise<Container[]> {
    this.enter('ListContainers', filter);
    return [...this.containers.values()]
      .filter((c) => !filter?.state || c.state === filter.state.state)
      .filter((c) => matches(c.labels, filter?.label_selector))
      .map((c) => ({
        id: c.id,
        pod_sandbox_id: c.sandboxId,
        metadata: c.metadata,
        image: c.image,
        image_ref: c.image_ref,
        state: c.state,
        created_at: c.created_at,
        labels: c.labels,
        annotations: c.annotations,
        image_id: '',
      }));
  }

  async containerStatus(id: string) {
    this.enter('ContainerStatus', id);
    const { config: _c, sandboxId: _s, ...status } = this.mustContainer('ContainerStatus', id);
    return { status, info: {} };
  }

  async execSync(id: string, cmd: string[], timeout: number) {
    this.enter('ExecSync', id, cmd, timeout);
    this.mustContainer('ExecSync', id);
    return { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), exit_code: 0 };
  }

  getContainerEvents() {
    return { cancel: () => {} };
  }

  async imageStatus(spec: ImageSpec) {
    this.enter('ImageStatus', spec);
    const size = this.present.get(spec.image);
    const image: Image | null =
      size === undefined
        ? null
        : {
            id: `sha256:${spec.image}`,
            repo_tags: [spec.image],
            repo_digests: [],
            size: String(size),
            uid: null,
            username: '',
            spec: null,
            pinned: false,
          };
    return { image, info: {} };
  }

  async pullImage(spec: ImageSpec) {
    this.enter('PullImage', spec);
    if (!this.registry.has(spec.image)) {
      throw new CriError(
        'PullImage',
        GrpcCode.NOT_FOUND,
        `failed to pull and unpack image "docker.io/library/${spec.image}": not found`,
      );
    }
    this.present.set(spec.image, 4_096);
    return { image_ref: `sha256:${spec.image}` };
  }

  async listImages() {
    this.enter('ListImages');
    return [];
  }

  async removeImage(spec: ImageSpec) {
    this.enter('RemoveImage', spec);
    this.present.delete(spec.image);
  }
}

function matches(labels: Record<string, string>, selector: Record<string, string> | undefined): boolean {
  return Object.entries(selector ?? {}).every(([k, v]) => labels[k] === v);
}
