import type { Pod } from '@syncscope/core/api';
import { describe, expect, it } from 'vitest';
import {
  execErrorStatus,
  exitCodeStatus,
  frames,
  MAX_FRAME_BYTES,
  negotiateProtocol,
  readClientMessage,
  STREAM_PROTOCOL_V4,
  STREAM_PROTOCOL_V5,
  statusFrame,
  successStatus,
} from './exec-channel.ts';
import { planStream } from './exec-plan.ts';

describe('channel framing', () => {
  it('reads stdin data, v5 close signals, and 255 as a plain channel under v4', () => {
    expect(readClientMessage(Buffer.from('\x00hi'), STREAM_PROTOCOL_V5)).toEqual({
      kind: 'data',
      channel: 0,
      data: Buffer.from('hi'),
    });
    expect(readClientMessage(Buffer.of(255, 0), STREAM_PROTOCOL_V5)).toEqual({ kind: 'close', channel: 0 });
    expect(readClientMessage(Buffer.of(255, 0), STREAM_PROTOCOL_V4)).toMatchObject({
      kind: 'data',
      channel: 255,
    });
    expect(readClientMessage(Buffer.alloc(0), STREAM_PROTOCOL_V5)).toEqual({ kind: 'empty' });
  });

  it('writes output as channel-prefixed messages of bounded size', () => {
    expect(frames(1, Buffer.from('hi\n'))).toEqual([Buffer.from('\x01hi\n')]);
    expect(frames(2, Buffer.alloc(0))).toEqual([]);
    const big = frames(1, Buffer.alloc(MAX_FRAME_BYTES * 2 + 1, 'x'));
    expect(big.map((f) => f.length)).toEqual([MAX_FRAME_BYTES + 1, MAX_FRAME_BYTES + 1, 2]);
    expect(big.every((f) => f[0] === 1)).toBe(true);
  });

  it('writes the error channel Status as the kubelet marshals it', () => {
    expect(statusFrame(successStatus()).toString()).toBe('\x03{"metadata":{},"status":"Success"}');
    expect(
      JSON.parse(
        statusFrame(exitCodeStatus(['sh', '-c', 'exit 3'], 3))
          .subarray(1)
          .toString(),
      ),
    ).toEqual({
      metadata: {},
      status: 'Failure',
      message:
        'command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3',
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: '3' }] },
    });
    expect(execErrorStatus('boom')).toMatchObject({
      reason: 'InternalError',
      code: 500,
      message: 'Internal error occurred: error executing command in container: boom',
    });
  });

  it('answers with the first offered protocol it serves', () => {
    expect(negotiateProtocol('v5.channel.k8s.io')).toBe(STREAM_PROTOCOL_V5);
    expect(negotiateProtocol('base64.channel.k8s.io, v4.channel.k8s.io, v5.channel.k8s.io')).toBe(
      STREAM_PROTOCOL_V4,
    );
    expect(negotiateProtocol('channel.k8s.io')).toBeUndefined();
    expect(negotiateProtocol(undefined)).toBeUndefined();
  });
});

const pod = (running: boolean): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default' },
  spec: { containers: [{ name: 'app', image: 'busybox' }] },
  status: {
    phase: running ? 'Running' : 'Pending',
    containerStatuses: [
      {
        name: 'app',
        image: 'busybox',
        imageID: '',
        ready: running,
        restartCount: 0,
        containerID: 'containerd://abc',
        state: running ? { running: { startedAt: '2026-01-01T00:00:00Z' } } : { waiting: {} },
        lastState: {},
      },
    ],
  },
});

describe('planStream', () => {
  it('reads a repeated ?command= as the argv and the one container as the default', () => {
    const q = { command: ['sh', '-c', 'exit 3'], stdout: 'true', stderr: '1', tty: 'false' };
    expect(planStream('exec', pod(true), q)).toEqual({
      kind: 'exec',
      container: 'app',
      containerId: 'abc',
      command: ['sh', '-c', 'exit 3'],
      stdin: false,
      stdout: true,
      stderr: true,
      tty: false,
    });
  });

  it('refuses as the apiserver and the kubelet do', () => {
    expect(planStream('exec', pod(true), { stdout: 'true' })).toMatchObject({
      status: { code: 400, message: 'you must specify at least 1 command' },
    });
    expect(planStream('exec', pod(true), { command: 'ls', container: 'x', stdout: 'true' })).toMatchObject({
      status: { code: 400, message: 'container x is not valid for pod p' },
    });
    expect(planStream('exec', pod(true), { command: 'ls' })).toMatchObject({
      status: { message: 'you must specify at least 1 of stdin, stdout, stderr' },
    });
    expect(planStream('exec', pod(true), { command: 'ls', stdout: 'maybe' })).toMatchObject({
      status: { code: 400, details: { causes: [{ field: 'stdout' }] } },
    });
    expect(planStream('exec', pod(false), { command: 'ls', stdout: 'true' })).toEqual({
      text: 'container not found ("app")',
      code: 500,
    });
  });
});
