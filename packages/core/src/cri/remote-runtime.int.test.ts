import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CriServer, serveCri } from './grpc-server.ts';
import {
  imageSpec,
  linuxContainerResources,
  linuxContainerSecurityContext,
  linuxSandboxSecurityContext,
  namespaceOption,
} from './messages.ts';
import { parseEndpoint, RemoteRuntime } from './remote-runtime.ts';
import {
  type Container,
  type ContainerConfig,
  type ContainerEventResponse,
  type ContainerFilter,
  type ContainerStatus,
  CriError,
  type CriRuntime,
  type ExecSyncResponse,
  GrpcCode,
  type Image,
  type ImageSpec,
  type PodSandbox,
  type PodSandboxConfig,
  type PodSandboxFilter,
} from './types.ts';

// Beyond 2^53: survives only if int64 travels as a decimal string end to end.
const CREATED_NS = '1700000000123456789';
const NOT_FOUND = (what: string) =>
  new CriError('x', GrpcCode.NOT_FOUND, `an error occurred when try to find ${what}: not found`);

/** A tiny in-memory runtime: enough state to answer every RPC, plus knobs for failures. */
class FakeRuntime implements CriRuntime {
  sandboxes = new Map<string, { config: PodSandboxConfig; handler: string; ready: boolean }>();
  containers = new Map<string, { sandboxId: string; config: ContainerConfig; running: boolean }>();
  images = new Map<string, Image>([['busybox:1.36', image('sha256:bb', 'busybox:1.36')]]);
  stopTimeouts: unknown[] = [];
  execTimeouts: unknown[] = [];
  /** Methods (interface names) that never answer. */
  hang = new Set<string>();
  emptyIds = false;
  subscribers = new Set<(ev: ContainerEventResponse) => void>();
  subscribed: Promise<void>;
  streamCancelled: Promise<void>;
  private onSubscribe!: () => void;
  private onCancel!: () => void;
  private next = 0;

  constructor() {
    this.subscribed = new Promise((r) => (this.onSubscribe = r));
    this.streamCancelled = new Promise((r) => (this.onCancel = r));
  }

  private gate<T>(method: string, fn: () => T): Promise<T> {
    if (this.hang.has(method)) return new Promise<T>(() => {});
    return Promise.resolve().then(fn);
  }

  version() {
    return this.gate('version', () => ({
      version: '0.1.0',
      runtime_name: 'fake',
      runtime_version: '1.0.0',
      runtime_api_version: 'v1',
    }));
  }
  status() {
    return this.gate('status', () => ({
      status: {
        conditions: ['RuntimeReady', 'NetworkReady'].map((type) => ({
          type,
          status: true,
          reason: '',
          message: '',
        })),
      },
      info: {},
    }));
  }
  runPodSandbox(config: PodSandboxConfig, runtimeHandler = '') {
    return this.gate('runPodSandbox', () => {
      const id = this.emptyIds ? '' : `sb-${++this.next}`;
      this.sandboxes.set(id, { config, handler: runtimeHandler, ready: true });
      return id;
    });
  }
  stopPodSandbox(id: string) {
    return this.gate('stopPodSandbox', () => {
      this.sandbox(id).ready = false;
    });
  }
  removePodSandbox(id: string) {
    return this.gate('removePodSandbox', () => void this.sandboxes.delete(id));
  }
  podSandboxStatus(id: string) {
    return this.gate('podSandboxStatus', () => {
      const s = this.sandbox(id);
      const status = {
        ...this.podSandbox(id),
        network: { ip: '10.88.0.7', additional_ips: [] },
        linux: { namespaces: { options: s.config.linux?.security_context?.namespace_options ?? null } },
      };
      return { status, info: {}, containers_statuses: [], timestamp: '0' };
    });
  }
  listPodSandbox(filter?: PodSandboxFilter) {
    return this.gate('listPodSandbox', () =>
      [...this.sandboxes.keys()]
        .filter((id) => !filter?.id || filter.id === id)
        .map((id) => this.podSandbox(id)),
    );
  }
  createContainer(sandboxId: string, config: ContainerConfig, _sandboxConfig: PodSandboxConfig) {
    return this.gate('createContainer', () => {
      this.sandbox(sandboxId);
      const id = this.emptyIds ? '' : `c-${++this.next}`;
      this.containers.set(id, { sandboxId, config, running: false });
      return id;
    });
  }
  startContainer(id: string) {
    return this.gate('startContainer', () => {
      this.container(id).running = true;
    });
  }
  stopContainer(id: string, timeout: number) {
    return this.gate('stopContainer', () => {
      this.stopTimeouts.push(timeout);
      this.container(id).running = false;
    });
  }
  removeContainer(id: string) {
    return this.gate('removeContainer', () => void this.containers.delete(id));
  }
  listContainers(filter?: ContainerFilter) {
    return this.gate('listContainers', () =>
      [...this.containers.keys()]
        .filter((id) => !filter?.pod_sandbox_id || this.container(id).sandboxId === filter.pod_sandbox_id)
        .map((id): Container => {
          const s = this.containerStatusOf(id);
          const { id: _, metadata, image, image_ref, state, created_at, labels, annotations } = s;
          return {
            id,
            pod_sandbox_id: this.container(id).sandboxId,
            metadata,
            image,
            image_ref,
            state,
            created_at,
            labels,
            annotations,
            image_id: '',
          };
        }),
    );
  }
  containerStatus(id: string) {
    return this.gate('containerStatus', () => ({ status: this.containerStatusOf(id), info: {} }));
  }
  execSync(id: string, cmd: string[], timeout: number) {
    return this.gate('execSync', (): ExecSyncResponse => {
      this.container(id);
      this.execTimeouts.push(timeout);
      return { stdout: Buffer.from(`${cmd.join(' ')}\n`), stderr: Buffer.from('warn\n'), exit_code: 3 };
    });
  }
  getContainerEvents(onEvent: (ev: ContainerEventResponse) => void, onEnd: (err?: Error) => void) {
    if (this.hang.has('getContainerEvents:unimplemented')) {
      queueMicrotask(() =>
        onEnd(
          new CriError(
            'GetContainerEvents',
            GrpcCode.UNIMPLEMENTED,
            'method GetContainerEvents not implemented',
          ),
        ),
      );
      return { cancel() {} };
    }
    this.subscribers.add(onEvent);
    this.onSubscribe();
    return {
      cancel: () => {
        this.subscribers.delete(onEvent);
        this.onCancel();
      },
    };
  }
  imageStatus(spec: ImageSpec) {
    return this.gate('imageStatus', () => ({ image: this.images.get(spec.image) ?? null, info: {} }));
  }
  pullImage(spec: ImageSpec) {
    return this.gate('pullImage', () => {
      if (spec.image.startsWith('missing'))
        throw new Error(`failed to pull and unpack image "${spec.image}": not found`);
      this.images.set(spec.image, image(`sha256:${spec.image.length}`, spec.image));
      return { image_ref: `sha256:${spec.image.length}` };
    });
  }
  listImages() {
    return this.gate('listImages', () => [...this.images.values()]);
  }
  removeImage(spec: ImageSpec) {
    return this.gate('removeImage', () => void this.images.delete(spec.image));
  }

  emit(ev: ContainerEventResponse) {
    for (const s of this.subscribers) s(ev);
  }
  private sandbox(id: string) {
    const s = this.sandboxes.get(id);
    if (!s) throw NOT_FOUND(`sandbox "${id}"`);
    return s;
  }
  private container(id: string) {
    const c = this.containers.get(id);
    if (!c) throw NOT_FOUND(`container "${id}"`);
    return c;
  }
  private podSandbox(id: string): PodSandbox {
    const s = this.sandbox(id);
    return {
      id,
      metadata: s.config.metadata,
      state: s.ready ? 'SANDBOX_READY' : 'SANDBOX_NOTREADY',
      created_at: CREATED_NS,
      labels: s.config.labels,
      annotations: s.config.annotations,
      runtime_handler: s.handler,
    };
  }
  private containerStatusOf(id: string): ContainerStatus {
    const c = this.container(id);
    return {
      id,
      metadata: c.config.metadata,
      state: c.running ? 'CONTAINER_RUNNING' : 'CONTAINER_CREATED',
      created_at: CREATED_NS,
      started_at: c.running ? CREATED_NS : '0',
      finished_at: '0',
      exit_code: 0,
      image: c.config.image,
      image_ref: 'sha256:bb',
      reason: '',
      message: '',
      labels: c.config.labels,
      annotations: c.config.annotations,
      mounts: [],
      log_path: c.config.log_path,
      resources: null,
      image_id: '',
    };
  }
}

function image(id: string, tag: string): Image {
  return {
    id,
    repo_tags: [tag],
    repo_digests: [],
    size: '4400000',
    uid: null,
    username: '',
    spec: null,
    pinned: false,
  };
}

const sandboxConfig: PodSandboxConfig = {
  metadata: { name: 'web', uid: 'uid-1', namespace: 'default', attempt: 0 },
  hostname: 'web',
  log_directory: '/var/log/pods/default_web_uid-1',
  dns_config: { servers: ['10.96.0.10'], searches: ['default.svc.cluster.local'], options: ['ndots:5'] },
  port_mappings: [{ protocol: 'TCP', container_port: 80, host_port: 0, host_ip: '' }],
  labels: { 'io.kubernetes.pod.name': 'web' },
  annotations: { 'kubernetes.io/config.seen': 'now' },
  linux: {
    cgroup_parent: '/kubepods/besteffort/poduid-1',
    security_context: linuxSandboxSecurityContext({
      namespace_options: namespaceOption({ network: 'POD', pid: 'CONTAINER', ipc: 'POD' }),
    }),
    sysctls: {},
  },
};

const containerConfig: ContainerConfig = {
  metadata: { name: 'nginx', attempt: 2 },
  image: imageSpec({ image: 'busybox:1.36' }),
  command: ['sh', '-c'],
  args: ['sleep infinity'],
  working_dir: '/work',
  envs: [{ key: 'A', value: '1' }],
  mounts: [],
  labels: { 'io.kubernetes.container.name': 'nginx' },
  annotations: { 'io.kubernetes.container.restartCount': '2' },
  log_path: 'nginx/2.log',
  stdin: false,
  stdin_once: false,
  tty: false,
  linux: {
    resources: linuxContainerResources({ memory_limit_in_bytes: '33554432', cpu_shares: '2' }),
    security_context: linuxContainerSecurityContext({}),
  },
};

let dir: string;
let fake: FakeRuntime;
let server: CriServer | undefined;
let client: RemoteRuntime | undefined;
let sock: string;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cri-'));
  sock = join(dir, 'run', 'cri.sock'); // parent dir does not exist yet: serveCri creates it
  fake = new FakeRuntime();
  server = await serveCri(fake, sock);
  client = new RemoteRuntime(server.endpoint);
});

afterEach(async () => {
  client?.close();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function rt(): RemoteRuntime {
  return client!;
}

async function rejection(p: Promise<unknown>): Promise<CriError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CriError);
  return err as CriError;
}

describe('RemoteRuntime ↔ serveCri over a unix socket', () => {
  it('carries every runtime and image call with its arguments and answers', async () => {
    expect(server!.endpoint).toBe(`unix://${sock}`);
    expect(await rt().version()).toEqual({
      version: '0.1.0',
      runtime_name: 'fake',
      runtime_version: '1.0.0',
      runtime_api_version: 'v1',
    });
    expect((await rt().status()).status?.conditions.map((c) => [c.type, c.status])).toEqual([
      ['RuntimeReady', true],
      ['NetworkReady', true],
    ]);

    const sb = await rt().runPodSandbox(sandboxConfig, 'runc');
    const stored = fake.sandboxes.get(sb)!;
    expect(stored.handler).toBe('runc');
    expect(stored.config).toMatchObject(sandboxConfig);

    const sbStatus = (await rt().podSandboxStatus(sb)).status!;
    expect(sbStatus).toMatchObject({ id: sb, state: 'SANDBOX_READY', network: { ip: '10.88.0.7' } });
    expect(sbStatus.linux?.namespaces?.options).toMatchObject({
      network: 'POD',
      pid: 'CONTAINER',
      ipc: 'POD',
    });
    expect((await rt().listPodSandbox()).map((s) => s.id)).toEqual([sb]);
    expect(await rt().listPodSandbox({ id: 'other' })).toEqual([]);

    const c = await rt().createContainer(sb, containerConfig, sandboxConfig);
    expect(fake.containers.get(c)!.config).toMatchObject(containerConfig);
    await rt().startContainer(c);
    expect((await rt().containerStatus(c)).status).toMatchObject({
      id: c,
      state: 'CONTAINER_RUNNING',
      metadata: { name: 'nginx', attempt: 2 },
    });
    expect(
      (await rt().listContainers({ pod_sandbox_id: sb })).map((x) => [x.id, x.pod_sandbox_id, x.state]),
    ).toEqual([[c, sb, 'CONTAINER_RUNNING']]);

    const exec = await rt().execSync(c, ['cat', '/tmp/ready'], 1);
    expect([
      Buffer.from(exec.stdout).toString(),
      Buffer.from(exec.stderr).toString(),
      exec.exit_code,
    ]).toEqual(['cat /tmp/ready\n', 'warn\n', 3]);
    expect(fake.execTimeouts).toEqual([1]);

    await rt().stopContainer(c, 30);
    expect(fake.stopTimeouts).toEqual([30]); // int64 on the wire, a number again at the runtime
    await rt().removeContainer(c);
    await rt().stopPodSandbox(sb);
    expect((await rt().listPodSandbox())[0]?.state).toBe('SANDBOX_NOTREADY');
    await rt().removePodSandbox(sb);
    expect(await rt().listPodSandbox()).toEqual([]);

    expect((await rt().imageStatus(imageSpec({ image: 'nginx:1.27' }))).image).toBeNull();
    expect(await rt().pullImage(imageSpec({ image: 'nginx:1.27' }), sandboxConfig)).toEqual({
      image_ref: 'sha256:10',
    });
    expect((await rt().imageStatus(imageSpec({ image: 'nginx:1.27' }))).image).toMatchObject({
      id: 'sha256:10',
      repo_tags: ['nginx:1.27'],
    });
    expect((await rt().listImages()).map((i) => i.repo_tags[0])).toEqual(['busybox:1.36', 'nginx:1.27']);
    await rt().removeImage(imageSpec({ image: 'nginx:1.27' }));
    expect((await rt().listImages()).length).toBe(1);
  });

  it('delivers int64 fields as exact decimal strings', async () => {
    const sb = await rt().runPodSandbox(sandboxConfig);
    const c = await rt().createContainer(sb, containerConfig, sandboxConfig);
    const st = (await rt().containerStatus(c)).status!;
    expect(st.created_at).toBe(CREATED_NS);
    expect(st.started_at).toBe('0');
    expect((await rt().listPodSandbox())[0]?.created_at).toBe(CREATED_NS);
    expect((await rt().listImages())[0]?.size).toBe('4400000');
    expect(fake.containers.get(c)!.config.linux?.resources?.memory_limit_in_bytes).toBe('33554432');
  });

  it('maps a NOT_FOUND from the runtime to CriError code 5 with its text', async () => {
    const err = await rejection(rt().containerStatus('nope'));
    expect([err.method, err.code, err.details]).toEqual([
      'ContainerStatus',
      5,
      'an error occurred when try to find container "nope": not found',
    ]);
    expect(err.message).toBe(
      'ContainerStatus failed: rpc error: code = NotFound desc = an error occurred when try to find container "nope": not found',
    );
  });

  it('maps a plain runtime error to UNKNOWN, keeping the message', async () => {
    const err = await rejection(rt().pullImage(imageSpec({ image: 'missing:1' })));
    expect([err.method, err.code, err.details]).toEqual([
      'PullImage',
      2,
      'failed to pull and unpack image "missing:1": not found',
    ]);
  });

  it('says UNAVAILABLE with the connection error when nothing listens on the socket, without an empty note', async () => {
    const none = new RemoteRuntime(`unix://${join(dir, 'none.sock')}`, { timeoutMs: 2000 });
    try {
      const err = await rejection(none.version());
      expect(err.code).toBe(14);
      expect(err.details).toContain('none.sock');
      expect(err.details).not.toMatch(/Resolution note/);
    } finally {
      none.close();
    }
  });

  it('rejects an answer without an id as UNKNOWN', async () => {
    fake.emptyIds = true;
    const err = await rejection(rt().runPodSandbox(sandboxConfig));
    expect([err.method, err.code]).toEqual(['RunPodSandbox', 2]);
    expect(err.details).toBe(
      'PodSandboxId is not set for sandbox "&PodSandboxMetadata{Name:web,Uid:uid-1,Namespace:default,Attempt:0,}"',
    );
  });

  it('gives up on a call that never answers with DEADLINE_EXCEEDED', async () => {
    fake.hang.add('version');
    const short = new RemoteRuntime(server!.endpoint, { timeoutMs: 200 });
    try {
      const err = await rejection(short.version());
      expect([err.method, err.code]).toEqual(['Version', 4]);
    } finally {
      short.close();
    }
  });

  it('bounds ExecSync even when the exec itself has no timeout', async () => {
    fake.hang.add('execSync');
    const short = new RemoteRuntime(server!.endpoint, { timeoutMs: 200 });
    try {
      const err = await rejection(short.execSync('c-1', ['sleep', '1000'], 0));
      expect([err.method, err.code]).toEqual(['ExecSync', 4]);
    } finally {
      short.close();
    }
  });

  it('streams container events until the client cancels', async () => {
    const got: ContainerEventResponse[] = [];
    let second!: () => void;
    const twoEvents = new Promise<void>((r) => (second = r));
    const ended: (Error | undefined)[] = [];
    let onEnd!: () => void;
    const endedP = new Promise<void>((r) => (onEnd = r));
    const stream = rt().getContainerEvents(
      (ev) => {
        got.push(ev);
        if (got.length === 2) second();
      },
      (err) => {
        ended.push(err);
        onEnd();
      },
    );
    await fake.subscribed;
    const ev = (
      id: string,
      type: ContainerEventResponse['container_event_type'],
    ): ContainerEventResponse => ({
      container_id: id,
      container_event_type: type,
      created_at: CREATED_NS,
      pod_sandbox_status: null,
      containers_statuses: [],
    });
    fake.emit(ev('c-1', 'CONTAINER_STARTED_EVENT'));
    fake.emit(ev('c-1', 'CONTAINER_STOPPED_EVENT'));
    await twoEvents;
    expect(got.map((e) => [e.container_id, e.container_event_type, e.created_at])).toEqual([
      ['c-1', 'CONTAINER_STARTED_EVENT', CREATED_NS],
      ['c-1', 'CONTAINER_STOPPED_EVENT', CREATED_NS],
    ]);
    stream.cancel();
    await endedP;
    await fake.streamCancelled; // the runtime side was told too
    expect(ended).toEqual([undefined]);
  });

  it('ends the event stream with the runtime error when the runtime refuses it', async () => {
    fake.hang.add('getContainerEvents:unimplemented');
    const err = await new Promise<Error | undefined>((resolve) => rt().getContainerEvents(() => {}, resolve));
    expect(err).toBeInstanceOf(CriError);
    expect([(err as CriError).method, (err as CriError).code]).toEqual(['GetContainerEvents', 12]);
  });
});

describe('parseEndpoint', () => {
  it('accepts unix:// URLs and absolute paths, and returns the socket path', () => {
    expect(parseEndpoint('unix:///run/containerd/containerd.sock')).toBe('/run/containerd/containerd.sock');
    expect(parseEndpoint('/tmp/sim.sock')).toBe('/tmp/sim.sock');
  });

  it('rejects other protocols and relative paths', () => {
    expect(() => parseEndpoint('tcp://127.0.0.1:1234')).toThrow('protocol "tcp" not supported');
    expect(() => parseEndpoint('unix://run/x.sock')).toThrow('must be absolute');
    expect(() => parseEndpoint('containerd.sock')).toThrow('not a unix socket path');
  });
});
