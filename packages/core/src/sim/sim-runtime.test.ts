import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { imageSpec } from '../cri/messages.ts';
import { CriError, GrpcCode, msToNs } from '../cri/types.ts';
import { containerConfig, type Node, newNode } from './test-helpers.ts';

let n: Node;
beforeEach(() => {
  n = newNode();
});
afterEach(() => n.cleanup());

async function status(id: string) {
  const s = (await n.sim.containerStatus(id)).status;
  if (!s) throw new Error('no status');
  return s;
}

async function criError(p: Promise<unknown>): Promise<CriError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof CriError) return e;
    throw e;
  }
  throw new Error('expected a CriError');
}

describe('container states (as containerd 1.6 reports them)', () => {
  it('created, then running, then exited 0 → Completed', async () => {
    const { id: pod, config } = await n.pod('p');
    const id = await n.sim.createContainer(
      pod,
      containerConfig('c', ['sh', '-c', 'sleep 2; exit 0']),
      config,
    );
    let s = await status(id);
    expect(s).toMatchObject({
      state: 'CONTAINER_CREATED',
      exit_code: 0,
      reason: '',
      started_at: '0',
      finished_at: '0',
    });
    expect(s.created_at).toBe(msToNs(n.clock.now()));
    await n.sim.startContainer(id);
    const started = n.clock.now();
    s = await status(id);
    expect(s).toMatchObject({ state: 'CONTAINER_RUNNING', started_at: msToNs(started), finished_at: '0' });
    await n.clock.step(1999);
    expect((await status(id)).state).toBe('CONTAINER_RUNNING');
    await n.clock.step(1);
    s = await status(id);
    expect(s).toMatchObject({
      state: 'CONTAINER_EXITED',
      exit_code: 0,
      reason: 'Completed',
      message: '',
      finished_at: msToNs(started + 2000),
    });
  });

  it('exit 3 → Error', async () => {
    const { id: pod, config } = await n.pod('p');
    const id = await n.run(pod, config, 'c', ['sh', '-c', 'exit 3']);
    await n.sim.whenExited(id);
    expect(await status(id)).toMatchObject({ state: 'CONTAINER_EXITED', exit_code: 3, reason: 'Error' });
  });

  it('StopContainer: TERM ignored by PID 1 → SIGKILL 137 after exactly the timeout', async () => {
    const { id: pod, config } = await n.pod('p');
    const id = await n.run(pod, config, 'c', ['sleep', '3600']);
    const t0 = n.clock.now();
    let done = false;
    const stop = n.sim.stopContainer(id, 30).then(() => (done = true));
    await n.clock.step(29_999);
    expect(done).toBe(false);
    expect((await status(id)).state).toBe('CONTAINER_RUNNING');
    await n.clock.step(1);
    await stop;
    expect(await status(id)).toMatchObject({
      state: 'CONTAINER_EXITED',
      exit_code: 137,
      reason: 'Error',
      finished_at: msToNs(t0 + 30_000),
    });
  });

  it('StopContainer: in the sandbox-shared pid namespace (no pid option), SIGTERM ends the container with 143', async () => {
    const { id: pod, config } = await n.pod('p');
    const c = containerConfig('shared', ['sh', '-c', 'while true; do sleep 1; done']);
    c.linux = { resources: null, security_context: null };
    const id = await n.sim.createContainer(pod, c, config);
    await n.sim.startContainer(id);
    await n.sim.stopContainer(id, 30);
    expect(await status(id)).toMatchObject({ state: 'CONTAINER_EXITED', exit_code: 143, reason: 'Error' });
  });

  it('StopContainer: a TERM trap runs when the current sleep ends', async () => {
    const { id: pod, config } = await n.pod('p');
    const id = await n.run(pod, config, 'c', [
      'sh',
      '-c',
      'trap "echo bye; exit 0" TERM; while true; do sleep 1; done',
    ]);
    await n.clock.step(300);
    const t0 = n.clock.now();
    const stop = n.sim.stopContainer(id, 30);
    await n.clock.step(700);
    await stop;
    expect(await status(id)).toMatchObject({
      state: 'CONTAINER_EXITED',
      exit_code: 0,
      reason: 'Completed',
      finished_at: msToNs(t0 + 700),
    });
    expect(n.log('p', 'c')).toEqual(['stdout F bye']);
  });

  it('StopContainer with timeout 0 kills at once; on EXITED and CREATED it is OK', async () => {
    const { id: pod, config } = await n.pod('p');
    const id = await n.run(pod, config, 'c', ['sh', '-c', 'trap "exit 0" TERM; sleep 100']);
    await n.sim.stopContainer(id, 0);
    expect(await status(id)).toMatchObject({ exit_code: 137, reason: 'Error' });
    await n.sim.stopContainer(id, 10);
    const created = await n.sim.createContainer(pod, containerConfig('d', ['sleep', '1']), config);
    await n.sim.stopContainer(created, 10);
    expect((await status(created)).state).toBe('CONTAINER_CREATED');
  });

  it('a trapped TERM interrupts `wait` at once; the image default `sh` exits 0', async () => {
    const { id: pod, config } = await n.pod('p');
    const id = await n.run(pod, config, 'c', ['sh', '-c', 'trap "exit 0" TERM; sleep 1000 & wait']);
    const t0 = n.clock.now();
    await n.sim.stopContainer(id, 30);
    expect(await status(id)).toMatchObject({ exit_code: 0, reason: 'Completed', finished_at: msToNs(t0) });
    const plain = await n.run(pod, config, 'plain', []);
    await n.sim.whenExited(plain);
    expect(await status(plain)).toMatchObject({ exit_code: 0, reason: 'Completed' });
    expect(n.clock.pendingTimers).toBe(0);
  });

  it('nginx exits 0 on SIGTERM', async () => {
    const { id: pod, config } = await n.pod('web');
    const id = await n.run(pod, config, 'nginx', [], { image: imageSpec({ image: 'nginx' }) });
    expect(n.sim.isListening(id, 80)).toBe(true);
    expect(await n.sim.httpGet(n.sim.podIP(pod), 80, '/healthz')).toBe(200);
    await n.sim.stopContainer(id, 30);
    expect(await status(id)).toMatchObject({ exit_code: 0, reason: 'Completed' });
    expect(n.sim.isListening(id, 80)).toBe(false);
    await expect(n.sim.httpGet(n.sim.podIP(pod), 80, '/')).rejects.toThrow('connection refused');
  });

  it('StopPodSandbox kills running containers with 137, drops the IP, and may be repeated', async () => {
    const { id: pod, config } = await n.pod('p');
    expect((await n.sim.podSandboxStatus(pod)).status?.network?.ip).toMatch(/^10\.88\.0\.\d+$/);
    const a = await n.run(pod, config, 'a', ['sleep', 'infinity']);
    const b = await n.run(pod, config, 'b', ['sh', '-c', 'trap "exit 0" TERM; while true; do sleep 1; done']);
    await n.sim.stopPodSandbox(pod);
    for (const id of [a, b])
      expect(await status(id)).toMatchObject({ state: 'CONTAINER_EXITED', exit_code: 137, reason: 'Error' });
    const s = (await n.sim.podSandboxStatus(pod)).status;
    expect(s).toMatchObject({ state: 'SANDBOX_NOTREADY', network: { ip: '' } });
    await n.sim.stopPodSandbox(pod);
  });

  it('missing binary → UNKNOWN, then EXITED 128 StartError with started_at 0', async () => {
    const { id: pod, config } = await n.pod('p');
    const id = await n.sim.createContainer(pod, containerConfig('c', ['/bin/doesnotexist']), config);
    const e = await criError(n.sim.startContainer(id));
    const text =
      'failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "/bin/doesnotexist": stat /bin/doesnotexist: no such file or directory: unknown';
    expect(e.code).toBe(GrpcCode.UNKNOWN);
    expect(e.details).toBe(text);
    expect(await status(id)).toMatchObject({
      state: 'CONTAINER_EXITED',
      exit_code: 128,
      reason: 'StartError',
      message: text,
      started_at: '0',
    });
    expect((await status(id)).finished_at).not.toBe('0');
    const again = await criError(n.sim.startContainer(id));
    expect(again.details).toBe(
      `failed to set starting state for container "${id}": container is in CONTAINER_EXITED state`,
    );
  });

  it('OOM: tail /dev/zero under a memory limit → OOMKilled 137 about 100 ms after start', async () => {
    const { id: pod, config } = await n.pod('p');
    const id = await n.run(pod, config, 'c', ['sh', '-c', 'tail /dev/zero'], { memoryLimit: 32 << 20 });
    await n.clock.step(99);
    expect((await status(id)).state).toBe('CONTAINER_RUNNING');
    await n.clock.step(1);
    expect(await status(id)).toMatchObject({
      state: 'CONTAINER_EXITED',
      exit_code: 137,
      reason: 'OOMKilled',
      message: '',
    });
  });

  it('the crash program logs and exits 1; a sleep loop keeps running', async () => {
    const { id: pod, config } = await n.pod('p');
    const crash = await n.run(pod, config, 'crash', ['sh', '-c', 'echo boom; exit 1']);
    const loop = await n.run(pod, config, 'loop', ['sh', '-c', 'while true; do sleep 1; done']);
    await n.clock.step(60_000);
    expect(await status(crash)).toMatchObject({ exit_code: 1, reason: 'Error' });
    expect(n.log('p', 'crash')).toEqual(['stdout F boom']);
    expect((await status(loop)).state).toBe('CONTAINER_RUNNING');
  });

  it('log file: absolute path, CRI format, stderr, created at start', async () => {
    const { id: pod, config } = await n.pod('p');
    const id = await n.sim.createContainer(
      pod,
      containerConfig('c', ['sh', '-c', 'echo hello; echo oops >&2; echo -n part']),
      config,
    );
    const path = (await status(id)).log_path;
    expect(path).toBe(`${n.logDir}/p/c/0.log`);
    expect(() => readFileSync(path)).toThrow();
    await n.sim.startContainer(id);
    await n.sim.whenExited(id);
    const raw = readFileSync(path, 'utf8');
    expect(raw).toMatch(/^2026-01-01T12:00:00\.\d{9}Z stdout F hello\n/);
    expect(n.log('p', 'c')).toEqual(['stdout F hello', 'stderr F oops', 'stdout P part']);
  });
});

describe('errors and idempotence (containerd 1.6 codes and texts)', () => {
  it('NOT_FOUND texts for unknown ids', async () => {
    const x = 'f'.repeat(64);
    const cases: [Promise<unknown>, string][] = [
      [n.sim.containerStatus(x), `an error occurred when try to find container "${x}": not found`],
      [n.sim.startContainer(x), `an error occurred when try to find container "${x}": not found`],
      [n.sim.stopContainer(x, 1), `an error occurred when try to find container "${x}": not found`],
      [n.sim.podSandboxStatus(x), 'an error occurred when try to find sandbox: not found'],
      [n.sim.stopPodSandbox(x), `an error occurred when try to find sandbox "${x}": not found`],
      [
        n.sim.execSync(x, ['true'], 1),
        `failed to exec in container: failed to find container "${x}" in store: not found`,
      ],
      [
        n.sim.createContainer(x, containerConfig('c', ['true']), {} as never),
        `failed to find sandbox id "${x}": not found`,
      ],
    ];
    for (const [p, text] of cases) {
      const e = await criError(p);
      expect([e.code, e.details]).toEqual([GrpcCode.NOT_FOUND, text]);
    }
    await n.sim.removeContainer(x);
    await n.sim.removePodSandbox(x);
  });

  it('create in a stopped sandbox, missing image, duplicate names', async () => {
    const { id: pod, config } = await n.pod('p');
    let e = await criError(
      n.sim.createContainer(
        pod,
        containerConfig('c', ['true'], { image: imageSpec({ image: 'doesnotexist:1' }) }),
        config,
      ),
    );
    expect([e.code, e.details]).toEqual([
      GrpcCode.NOT_FOUND,
      'failed to resolve image "docker.io/library/doesnotexist:1": not found',
    ]);
    const first = await n.sim.createContainer(pod, containerConfig('dup', ['true']), config);
    e = await criError(n.sim.createContainer(pod, containerConfig('dup', ['true']), config));
    const cname = 'dup_p_default_uid-p_0';
    expect([e.code, e.details]).toEqual([
      GrpcCode.UNKNOWN,
      `failed to reserve container name "${cname}": name "${cname}" is reserved for "${first}"`,
    ]);
    e = await criError(n.sim.runPodSandbox(config));
    const sname = 'p_default_uid-p_0';
    expect([e.code, e.details]).toEqual([
      GrpcCode.UNKNOWN,
      `failed to reserve sandbox name "${sname}": name "${sname}" is reserved for "${pod}"`,
    ]);
    await n.sim.stopPodSandbox(pod);
    e = await criError(n.sim.createContainer(pod, containerConfig('c', ['true']), config));
    expect([e.code, e.details]).toEqual([
      GrpcCode.NOT_FOUND,
      `failed to get sandbox container task: no running task found: task ${pod} not found: not found`,
    ]);
  });

  it('RemovePodSandbox removes the sandbox and its containers and frees the names', async () => {
    const { id: pod, config } = await n.pod('p');
    const c = await n.run(pod, config, 'c', ['sleep', '10']);
    await n.sim.removePodSandbox(pod);
    expect(await n.sim.listPodSandbox()).toEqual([]);
    expect(await n.sim.listContainers()).toEqual([]);
    expect((await criError(n.sim.containerStatus(c))).code).toBe(GrpcCode.NOT_FOUND);
    expect(await n.sim.runPodSandbox(config)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('host-network sandboxes have no pod IP', async () => {
    const { id } = await n.pod('h', { hostNetwork: true });
    expect((await n.sim.podSandboxStatus(id)).status).toMatchObject({
      state: 'SANDBOX_READY',
      network: { ip: '' },
    });
  });
});

describe('lists and filters', () => {
  it('filters sandboxes and containers by id, state, sandbox and labels; labels come back verbatim', async () => {
    const a = await n.pod('a', { labels: { app: 'x', tier: 'web' }, annotations: { note: 'ä/€' } });
    const b = await n.pod('b', { labels: { app: 'y' } });
    await n.sim.stopPodSandbox(b.id);
    expect((await n.sim.listPodSandbox({ state: { state: 'SANDBOX_READY' } })).map((s) => s.id)).toEqual([
      a.id,
    ]);
    expect((await n.sim.listPodSandbox({ label_selector: { app: 'y' } })).map((s) => s.id)).toEqual([b.id]);
    const [sa] = await n.sim.listPodSandbox({ id: a.id });
    expect(sa).toMatchObject({
      labels: { app: 'x', tier: 'web' },
      annotations: { note: 'ä/€' },
      runtime_handler: '',
    });
    const run = await n.run(a.id, a.config, 'run', ['sleep', '9']);
    const made = await n.sim.createContainer(a.id, containerConfig('made', ['true']), a.config);
    expect((await n.sim.listContainers({ state: { state: 'CONTAINER_RUNNING' } })).map((c) => c.id)).toEqual([
      run,
    ]);
    expect((await n.sim.listContainers({ pod_sandbox_id: a.id })).length).toBe(2);
    expect(
      (await n.sim.listContainers({ label_selector: { 'io.kubernetes.container.name': 'made' } })).map(
        (c) => c.id,
      ),
    ).toEqual([made]);
    const [c] = await n.sim.listContainers({ id: run });
    expect(c?.image_ref).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});

describe('node-wide lists at scale', () => {
  const uidLabels = (pod: string) => ({ 'io.kubernetes.pod.uid': `uid-${pod}` });

  it('answers an unchanged node with the same frozen list, and a changed one with fresh states', async () => {
    const a = await n.pod('a', { labels: uidLabels('a') });
    const c = await n.run(a.id, a.config, 'c', ['sleep', '100']);
    const first = await n.sim.listContainers();
    expect(await n.sim.listContainers()).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first[0])).toBe(true);
    await n.clock.step(100_000);
    const after = await n.sim.listContainers();
    expect(after).not.toBe(first);
    expect(after.map((x) => [x.id, x.state])).toEqual([[c, 'CONTAINER_EXITED']]);
    expect(first[0]?.state).toBe('CONTAINER_RUNNING'); // an answer already given does not change
    expect(await n.sim.listContainers({ state: { state: 'CONTAINER_RUNNING' } })).toEqual([]);
  });

  it('per-pod lists by the pod-UID label see creations and removals', async () => {
    const a = await n.pod('a', { labels: uidLabels('a') });
    const b = await n.pod('b', { labels: uidLabels('b') });
    const byPod = (pod: string) => ({ label_selector: { 'io.kubernetes.pod.uid': `uid-${pod}` } });
    const ca = await n.sim.createContainer(
      a.id,
      containerConfig('x', ['true'], { labels: { ...uidLabels('a'), 'io.kubernetes.container.name': 'x' } }),
      a.config,
    );
    expect((await n.sim.listContainers(byPod('a'))).map((c) => c.id)).toEqual([ca]);
    expect(await n.sim.listContainers(byPod('b'))).toEqual([]);
    expect((await n.sim.listPodSandbox(byPod('b'))).map((s) => s.id)).toEqual([b.id]);
    expect(
      await n.sim.listContainers({ label_selector: { ...byPod('a').label_selector, other: 'v' } }),
    ).toEqual([]);
    await n.sim.removePodSandbox(a.id);
    expect(await n.sim.listContainers(byPod('a'))).toEqual([]);
    expect(await n.sim.listPodSandbox(byPod('a'))).toEqual([]);
    expect((await n.sim.listPodSandbox()).map((s) => s.id)).toEqual([b.id]);
  });
});

describe('RemoveContainer of a container already removed (as containerd answers it)', () => {
  it('succeeds again, while ContainerStatus of it answers NotFound', async () => {
    const { id: pod, config } = await n.pod('p');
    const id = await n.sim.createContainer(pod, containerConfig('c', ['sh', '-c', 'exit 0']), config);
    await n.sim.removeContainer(id);
    // containerd's CRI: "RemoveContainer called for container that does not exist" is no error
    await expect(n.sim.removeContainer(id)).resolves.toBeUndefined();
    const err = await criError(n.sim.containerStatus(id));
    expect(err.code).toBe(GrpcCode.NOT_FOUND);
    expect(err.message).toContain(`an error occurred when try to find container "${id}": not found`);
  });
});
