import { describe, expect, it } from 'vitest';
import { commandArgv, decodeFrame, endOf, execPath, STREAM_PROTOCOL_V4, STREAM_PROTOCOL_V5 } from './exec.ts';

const bytes = (...b: number[]) => Uint8Array.from(b);

describe('decodeFrame', () => {
  it('reads the channel from the first byte and the rest as its data', () => {
    const f = decodeFrame(bytes(2, 0x6f, 0x6b), STREAM_PROTOCOL_V5);
    expect(f).toEqual({ kind: 'data', channel: 2, data: bytes(0x6f, 0x6b) });
    expect(decodeFrame(bytes(1), STREAM_PROTOCOL_V5)).toEqual({ kind: 'data', channel: 1, data: bytes() });
    expect(decodeFrame(bytes(), STREAM_PROTOCOL_V5)).toEqual({ kind: 'empty' });
  });

  it('reads 255 as the close signal under v5 only', () => {
    expect(decodeFrame(bytes(255, 1), STREAM_PROTOCOL_V5)).toEqual({ kind: 'close', channel: 1 });
    expect(decodeFrame(bytes(255, 1), STREAM_PROTOCOL_V4)).toEqual({
      kind: 'data',
      channel: 255,
      data: bytes(1),
    });
  });
});

describe('endOf the error channel', () => {
  it('is exit code 0 on Success and the ExitCode cause on Failure', () => {
    expect(endOf('{"metadata":{},"status":"Success"}')).toEqual({ exitCode: 0 });
    const failed = {
      metadata: {},
      status: 'Failure',
      message:
        'command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3',
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: '3' }] },
    };
    expect(endOf(JSON.stringify(failed))).toEqual({ exitCode: 3 });
  });

  it('is the message when the command could not run, or when the channel is not a Status', () => {
    const internal = {
      status: 'Failure',
      message: 'Internal error occurred: error executing command in container: nope: not found',
      reason: 'InternalError',
      details: { causes: [{ message: 'error executing command in container: nope: not found' }] },
      code: 500,
    };
    expect(endOf(JSON.stringify(internal))).toEqual({ message: internal.message });
    expect(endOf('garbage')).toEqual({
      message: 'the error channel sent something that is not a Status: garbage',
    });
  });
});

describe('commandArgv', () => {
  it('splits a plain line on whitespace and runs a line with shell syntax through sh -c', () => {
    expect(commandArgv('  cat   /etc/hostname ')).toEqual({
      argv: ['cat', '/etc/hostname'],
      viaShell: false,
    });
    expect(commandArgv('echo oops >&2; exit 3')).toEqual({
      argv: ['sh', '-c', 'echo oops >&2; exit 3'],
      viaShell: true,
    });
    expect(commandArgv('ls $HOME')).toMatchObject({ viaShell: true });
    expect(commandArgv('   ')).toEqual({ argv: [], viaShell: false });
  });

  it('puts each argument in the query as its own command parameter', () => {
    const path = execPath({
      namespace: 'default',
      name: 'healthy',
      container: 'app',
      argv: ['sh', '-c', 'a b&c'],
    });
    expect(path).toBe(
      '/api/v1/namespaces/default/pods/healthy/exec?command=sh&command=-c&command=a+b%26c&container=app&stdout=true&stderr=true',
    );
  });
});
