import { describe, expect, it } from 'vitest';
import { syncResultError } from './runtime.ts';

describe('syncResultError (PodSyncResult.Error)', () => {
  it('reads as v1.32: one failed action alone, %q quoting, no SyncPod wrapping', () => {
    expect(
      syncResultError({
        actions: [
          {
            action: 'StartContainer',
            target: 'app',
            error: 'CrashLoopBackOff',
            message: 'back-off 10s restarting failed container=app pod=cl_default(uid-1)',
          },
        ],
      }),
    ).toBe(
      'failed to "StartContainer" for "app" with CrashLoopBackOff: "back-off 10s restarting failed container=app pod=cl_default(uid-1)"',
    );
  });

  it('wraps only the whole-sync error, joins several as an aggregate, and escapes quotes inside', () => {
    expect(
      syncResultError({
        syncError: 'rpc error: code = Unavailable desc = connection refused',
        actions: [
          { action: 'KillContainer', target: 'app' },
          {
            action: 'CreatePodSandbox',
            target: 'web_default(u)',
            error: 'CreatePodSandboxError',
            message: 'Failed to create pod sandbox: image "pause" not found',
          },
        ],
      }),
    ).toBe(
      '[failed to SyncPod: rpc error: code = Unavailable desc = connection refused, ' +
        'failed to "CreatePodSandbox" for "web_default(u)" with CreatePodSandboxError: "Failed to create pod sandbox: image \\"pause\\" not found"]',
    );
    expect(syncResultError({ actions: [{ action: 'StartContainer', target: 'app' }] })).toBeUndefined();
  });
});
