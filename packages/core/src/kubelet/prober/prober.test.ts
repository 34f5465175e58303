import { describe, expect, it } from 'vitest';
import type { Probe } from '../../api/v1.ts';
import { CriError, GrpcCode } from '../../cri/types.ts';
import { dialError } from './net-prober.ts';
import { expandCommand, resolveContainerPort } from './prober.ts';
import { execResult, makePod, ProberHarness } from './testing.ts';

const base = { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 };

async function runOnce(
  h: ProberHarness,
  probe: Probe,
  as: 'livenessProbe' | 'readinessProbe' = 'livenessProbe',
) {
  h.addPod(
    makePod([
      {
        name: 'app',
        image: 'nginx',
        ports: [{ name: 'http', containerPort: 8080 }],
        [as]: { ...base, ...probe },
      },
    ]),
  );
  await h.clock.step(0);
}

describe('prober', () => {
  it('records Unhealthy with the exec output against the container', async () => {
    const h = new ProberHarness();
    h.exec = async () => execResult(1, '', "cat: can't open '/tmp/healthy': No such file or directory\n");
    await runOnce(h, { exec: { command: ['cat', '/tmp/healthy'] } });

    expect(h.events).toEqual([
      {
        type: 'Warning',
        reason: 'Unhealthy',
        message: "Liveness probe failed: cat: can't open '/tmp/healthy': No such file or directory\n",
        fieldPath: 'spec.containers{app}',
      },
    ]);
    expect(h.execCalls).toEqual([
      expect.objectContaining({ containerID: 'app-1', cmd: ['cat', '/tmp/healthy'], timeout: 1 }),
    ]);
    const traced = h.trace.since(0).filter((e) => e.type === 'probe.result');
    expect(traced).toEqual([
      expect.objectContaining({ probe: 'Liveness', result: 'Failure', container: 'app', pod: 'default/web' }),
    ]);
  });

  it('treats an ExecSync deadline as a failed probe, without retrying', async () => {
    const h = new ProberHarness();
    h.exec = async () => {
      throw new CriError(
        'ExecSync',
        GrpcCode.DEADLINE_EXCEEDED,
        'failed to exec in container: timeout 1s exceeded: context deadline exceeded',
      );
    };
    await runOnce(h, { exec: { command: ['sh', '-c', 'sleep 5'] } });

    expect(h.execCalls).toHaveLength(1);
    expect(h.events.map((e) => e.message)).toEqual([
      'Liveness probe failed: command "sh -c sleep 5" timed out',
    ]);
    await h.clock.step(20_000);
    expect(h.manager.livenessManager.get('containerd://app-1')).toBe('Failure');
  });

  it('retries a probe that errors up to 3 times and throws the result away', async () => {
    const h = new ProberHarness();
    h.exec = async () => {
      throw new CriError(
        'ExecSync',
        GrpcCode.UNKNOWN,
        'failed to exec in container: container is in CONTAINER_EXITED state',
      );
    };
    await runOnce(h, { exec: { command: ['true'] } }, 'readinessProbe');

    expect(h.execCalls).toHaveLength(3);
    expect(h.events.map((e) => e.message)).toEqual([
      'Readiness probe errored and resulted in unknown state: rpc error: code = Unknown desc = failed to exec in container: container is in CONTAINER_EXITED state',
    ]);
    await h.clock.step(30_000);
    expect(h.execCalls).toHaveLength(12);
    // Errors never count towards a threshold: the only result is the initial one.
    expect(h.updates.map((u) => u.result)).toEqual(['Failure']);
    expect(h.trace.since(0).filter((e) => e.type === 'probe.result' && e.result === 'Unknown')).toHaveLength(
      4,
    );
  });

  it('stops retrying as soon as an attempt answers', async () => {
    const h = new ProberHarness();
    let n = 0;
    h.exec = async () => {
      if (n++ === 0) throw new CriError('ExecSync', GrpcCode.UNAVAILABLE, 'connection reset');
      return execResult(0);
    };
    await runOnce(h, { exec: { command: ['true'] } }, 'readinessProbe');
    expect(h.execCalls).toHaveLength(2);
    expect(h.events).toEqual([]);
    expect(h.manager.readinessManager.get('containerd://app-1')).toBe('Success');
  });

  it('probes HTTP at the pod IP and fails on a bad status code', async () => {
    const h = new ProberHarness();
    h.http = async () => ({ status: 503, body: 'draining' });
    await runOnce(h, { httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' } }, 'readinessProbe');
    expect(h.httpCalls).toEqual(['http://10.88.0.5:8080/healthz']);
    expect(h.events.map((e) => e.message)).toEqual([
      'Readiness probe failed: HTTP probe failed with statuscode: 503',
    ]);
  });

  it('reports an HTTP transport error as a failure worded like Go', async () => {
    const h = new ProberHarness();
    h.http = async () => ({ error: dialError('10.88.0.5', 8080, 'refused') });
    await runOnce(h, { httpGet: { path: '/', port: 8080 } });
    expect(h.events.map((e) => e.message)).toEqual([
      'Liveness probe failed: Get "http://10.88.0.5:8080/": dial tcp 10.88.0.5:8080: connect: connection refused',
    ]);
  });

  it('turns an unfollowed redirect into a ProbeWarning and a success', async () => {
    const h = new ProberHarness();
    h.http = async () => ({ status: 302, body: '' });
    await runOnce(h, { httpGet: { path: '/', port: 8080 } }, 'readinessProbe');
    expect(h.events).toEqual([
      expect.objectContaining({
        reason: 'ProbeWarning',
        message: 'Readiness probe warning: Probe terminated redirects, Response body: ',
      }),
    ]);
    expect(h.manager.readinessManager.get('containerd://app-1')).toBe('Success');
  });

  it('probes TCP and reports the dial error', async () => {
    const h = new ProberHarness();
    h.tcp = async (host, port) => ({ error: dialError(host, port, 'timeout') });
    await runOnce(h, { tcpSocket: { port: 5432 } });
    expect(h.tcpCalls).toEqual(['10.88.0.5:5432']);
    expect(h.events.map((e) => e.message)).toEqual([
      'Liveness probe failed: dial tcp 10.88.0.5:5432: i/o timeout',
    ]);
  });

  it('errors on a port it cannot resolve', async () => {
    const h = new ProberHarness();
    await runOnce(h, { tcpSocket: { port: 'metrics' } });
    expect(h.tcpCalls).toEqual([]);
    expect(h.events.map((e) => e.message)).toEqual([
      'Liveness probe errored and resulted in unknown state: strconv.Atoi: parsing "metrics": invalid syntax',
    ]);
  });

  it('resolves ports and expands $(VAR) in exec commands like the kubelet', () => {
    const c = {
      name: 'app',
      image: 'x',
      ports: [{ name: 'web', containerPort: 80 }],
      env: [{ name: 'F', value: '/tmp/ok' }],
    };
    expect(resolveContainerPort('web', c)).toBe(80);
    expect(resolveContainerPort('8443', c)).toBe(8443);
    expect(() => resolveContainerPort(70000, c)).toThrow('invalid port number: 70000');
    expect(expandCommand(['cat', '$(F)', '$(NOPE)', '$$(F)'], c)).toEqual([
      'cat',
      '/tmp/ok',
      '$(NOPE)',
      '$(F)',
    ]);
  });
});
