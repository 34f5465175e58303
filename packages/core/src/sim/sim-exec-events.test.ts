import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { imageSpec } from '../cri/messages.ts';
import { type ContainerEventResponse, CriError, GrpcCode } from '../cri/types.ts';
import { containerConfig, type Node, newNode } from './test-helpers.ts';

let n: Node;
beforeEach(() => {
  n = newNode();
});
afterEach(() => n.cleanup());

async function criError(p: Promise<unknown>): Promise<CriError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (e instanceof CriError) return e;
  throw new Error(`expected a CriError, got ${String(e)}`);
}

const text = (b: Uint8Array | Buffer) => Buffer.from(b).toString('utf8');

describe('ExecSync', () => {
  it('returns stdout, stderr and the exit code', async () => {
    const { id: pod, config } = await n.pod('p');
    const id = await n.run(pod, config, 'c', ['sleep', '3600']);
    const r = await n.sim.execSync(id, ['sh', '-c', 'echo out; echo err >&2; exit 5'], 1);
    expect([text(r.stdout), text(r.stderr), r.exit_code]).toEqual(['out\n', 'err\n', 5]);
    const ok = await n.sim.execSync(id, ['true'], 0);
    expect(ok.exit_code).toBe(0);
    const nf = await n.sim.execSync(id, ['sh', '-c', 'nosuchcmd'], 1);
    expect([text(nf.stderr), nf.exit_code]).toEqual(['sh: nosuchcmd: not found\n', 127]);
  });

  it('shares the container files (the liveness example: cat /tmp/healthy)', async () => {
    const { id: pod, config } = await n.pod('p');
    const id = await n.run(pod, config, 'c', [
      'sh',
      '-c',
      'touch /tmp/healthy; sleep 30; rm -f /tmp/healthy; sleep 600',
    ]);
    expect((await n.sim.execSync(id, ['cat', '/tmp/healthy'], 1)).exit_code).toBe(0);
    await n.clock.step(30_000);
    const r = await n.sim.execSync(id, ['cat', '/tmp/healthy'], 1);
    expect([r.exit_code, text(r.stderr)]).toEqual([
      1,
      "cat: can't open '/tmp/healthy': No such file or directory\n",
    ]);
  });

  it('times out with DEADLINE_EXCEEDED on the clock', async () => {
    const { id: pod, config } = await n.pod('p');
    const id = await n.run(pod, config, 'c', ['sleep', '3600']);
    const p = criError(n.sim.execSync(id, ['sleep', '5'], 1));
    await n.clock.step(1000);
    const e = await p;
    expect([e.code, e.details]).toEqual([
      GrpcCode.DEADLINE_EXCEEDED,
      'failed to exec in container: timeout 1s exceeded: context deadline exceeded',
    ]);
  });

  it('fails UNKNOWN when the container is not running or the binary is missing', async () => {
    const { id: pod, config } = await n.pod('p');
    const created = await n.sim.createContainer(pod, containerConfig('c', ['sleep', '1']), config);
    let e = await criError(n.sim.execSync(created, ['true'], 1));
    expect([e.code, e.details]).toEqual([
      GrpcCode.UNKNOWN,
      'failed to exec in container: container is in CONTAINER_CREATED state',
    ]);
    await n.sim.startContainer(created);
    e = await criError(n.sim.execSync(created, ['/bin/nope'], 1));
    expect(e.code).toBe(GrpcCode.UNKNOWN);
    expect(e.details).toMatch(
      /^failed to exec in container: failed to start exec "[0-9a-f]{64}": OCI runtime exec failed: exec failed: unable to start container process: exec: "\/bin\/nope": stat \/bin\/nope: no such file or directory: unknown$/,
    );
    await n.clock.step(1000);
    e = await criError(n.sim.execSync(created, ['true'], 1));
    expect(e.details).toBe('failed to exec in container: container is in CONTAINER_EXITED state');
  });
});

describe('GetContainerEvents', () => {
  it('streams created, started, stopped, deleted with sandbox and container statuses', async () => {
    const events: ContainerEventResponse[] = [];
    let ended: Error | undefined | null = null;
    const stream = n.sim.getContainerEvents(
      (ev) => events.push(ev),
      (err) => (ended = err),
    );
    const { id: pod, config } = await n.pod('p');
    const id = await n.run(pod, config, 'c', ['sh', '-c', 'sleep 1; exit 2']);
    await n.clock.step(1000);
    await n.sim.removeContainer(id);
    expect(events.map((e) => [e.container_event_type, e.container_id])).toEqual([
      ['CONTAINER_CREATED_EVENT', id],
      ['CONTAINER_STARTED_EVENT', id],
      ['CONTAINER_STOPPED_EVENT', id],
      ['CONTAINER_DELETED_EVENT', id],
    ]);
    const stopped = events[2] as ContainerEventResponse;
    expect(stopped.pod_sandbox_status).toMatchObject({ id: pod, state: 'SANDBOX_READY' });
    expect(stopped.containers_statuses).toMatchObject([
      { id, state: 'CONTAINER_EXITED', exit_code: 2, reason: 'Error' },
    ]);
    expect(events[3]?.containers_statuses).toEqual([]);
    stream.cancel();
    expect(ended).toBeUndefined();
  });
});

describe('images', () => {
  it('short names normalise; ImageStatus of a missing image is OK with null', async () => {
    const s = await n.sim.imageStatus(imageSpec({ image: 'busybox' }));
    expect(s.image).toMatchObject({ repo_tags: ['docker.io/library/busybox:latest'], repo_digests: [] });
    expect((await n.sim.imageStatus(imageSpec({ image: 'busybox:1.36' }))).image).toBeNull();
    expect((await n.sim.imageStatus(imageSpec({ image: s.image?.id ?? '' }))).image?.id).toBe(s.image?.id);
  });

  it('pull of a catalogue image takes its delay; unknown images fail UNKNOWN', async () => {
    await n.sim.removeImage(imageSpec({ image: 'nginx' }));
    expect((await n.sim.imageStatus(imageSpec({ image: 'nginx' }))).image).toBeNull();
    let pulled = '';
    const p = n.sim.pullImage(imageSpec({ image: 'nginx' })).then((r) => (pulled = r.image_ref));
    await n.clock.step(299);
    expect(pulled).toBe('');
    await n.clock.step(1);
    await p;
    expect(pulled).toMatch(/^sha256:/);
    expect((await n.sim.imageStatus(imageSpec({ image: 'docker.io/library/nginx:latest' }))).image?.id).toBe(
      pulled,
    );
    const e = await criError(n.sim.pullImage(imageSpec({ image: 'doesnotexist:1' })));
    expect(e.code).toBe(GrpcCode.UNKNOWN);
    expect(e.details).toBe(
      'failed to pull and unpack image "docker.io/library/doesnotexist:1": failed to resolve reference "docker.io/library/doesnotexist:1": failed to do request: Head "https://registry-1.docker.io/v2/library/doesnotexist/manifests/1": dial tcp: lookup registry-1.docker.io on 10.255.255.53:53: no such host',
    );
    expect((await criError(n.sim.pullImage(imageSpec({ image: 'Bad Name!!' })))).details).toMatch(
      /^failed to parse image reference "Bad Name!!": invalid reference format/,
    );
  });
});

describe('faults', () => {
  it('failNext fails the next n calls of a method, then the method works', async () => {
    n.sim.faults.failNext('startContainer', 2, GrpcCode.UNKNOWN, 'boom');
    const { id: pod, config } = await n.pod('p');
    const id = await n.sim.createContainer(pod, containerConfig('c', ['sleep', '9']), config);
    for (let i = 0; i < 2; i++) expect((await criError(n.sim.startContainer(id))).details).toBe('boom');
    await n.sim.startContainer(id);
    expect(() => n.sim.faults.failNext('Nope', 1)).toThrow(/unknown CRI method/);
  });

  it('an outage fails every call UNAVAILABLE for its duration while containers keep running', async () => {
    const { id: pod, config } = await n.pod('p');
    const id = await n.run(pod, config, 'c', ['sh', '-c', 'sleep 5; exit 7']);
    let streamErr: Error | undefined;
    n.sim.getContainerEvents(
      () => undefined,
      (e) => (streamErr = e),
    );
    n.sim.faults.outage(10_000);
    expect((streamErr as CriError | undefined)?.code).toBe(GrpcCode.UNAVAILABLE);
    expect((await criError(n.sim.listContainers())).code).toBe(GrpcCode.UNAVAILABLE);
    await n.clock.step(10_000);
    expect((await n.sim.containerStatus(id)).status).toMatchObject({ exit_code: 7, reason: 'Error' });
  });

  it('latency delays every call on the clock', async () => {
    n.sim.faults.latency(500);
    let done = false;
    const p = n.sim.version().then(() => (done = true));
    await n.clock.step(499);
    expect(done).toBe(false);
    await n.clock.step(1);
    await p;
  });

  it('exitContainer, unknownContainer, killSandbox, imageMissing', async () => {
    const { id: pod, config } = await n.pod('p');
    const a = await n.run(pod, config, 'a', ['sleep', 'infinity']);
    const b = await n.run(pod, config, 'b', ['sleep', 'infinity']);
    expect(n.sim.faults.exitContainer(a, 42)).toContain('exited with code 42');
    expect((await n.sim.containerStatus(a)).status).toMatchObject({
      state: 'CONTAINER_EXITED',
      exit_code: 42,
      reason: 'Error',
    });
    n.sim.faults.unknownContainer(b);
    expect((await n.sim.containerStatus(b)).status?.state).toBe('CONTAINER_UNKNOWN');
    await n.sim.stopContainer(b, 10);
    expect((await n.sim.containerStatus(b)).status).toMatchObject({
      state: 'CONTAINER_EXITED',
      exit_code: 255,
      reason: 'Unknown',
    });
    const c = await n.run(pod, config, 'c', ['sleep', 'infinity']);
    n.sim.faults.killSandbox(pod);
    expect((await n.sim.podSandboxStatus(pod)).status?.state).toBe('SANDBOX_NOTREADY');
    expect((await n.sim.containerStatus(c)).status).toMatchObject({ exit_code: 137, reason: 'Error' });
    n.sim.faults.imageMissing('busybox');
    expect((await n.sim.imageStatus(imageSpec({ image: 'busybox' }))).image).toBeNull();
    expect((await criError(n.sim.pullImage(imageSpec({ image: 'busybox' })))).code).toBe(GrpcCode.UNKNOWN);
  });
});
