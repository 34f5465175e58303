/** The update rules of a pod, as ValidatePodUpdate has them. */
import type { Pod } from '@syncscope/core/api';
import { setPodDefaults } from '@syncscope/core/api/defaults';
import { describe, expect, it } from 'vitest';
import { checkPodUpdate, podUpdateErrors } from './pod-update.ts';

const old: Pod = setPodDefaults({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default', uid: 'u1', creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: {
    activeDeadlineSeconds: 100,
    containers: [{ name: 'app', image: 'busybox', command: ['sh'] }],
    tolerations: [{ key: 'a', operator: 'Exists' }],
  } as Pod['spec'],
});

function spec(change: (s: Record<string, unknown>) => void): Pod['spec'] {
  const s = structuredClone(old.spec) as unknown as Record<string, unknown>;
  change(s);
  return s as unknown as Pod['spec'];
}

describe('pod update rules', () => {
  it('an image, a lower activeDeadlineSeconds and an added toleration may change', () => {
    const next = spec((s) => {
      (s.containers as [{ image: string }])[0].image = 'busybox:2';
      s.activeDeadlineSeconds = 50;
      (s.tolerations as unknown[]).push({ key: 'b', operator: 'Exists' });
    });
    expect(podUpdateErrors(old.spec, next)).toEqual([]);
  });

  it('a higher or removed activeDeadlineSeconds, a removed toleration or any other field may not', () => {
    const raise = podUpdateErrors(
      old.spec,
      spec((s) => (s.activeDeadlineSeconds = 200)),
    );
    expect(raise[0]?.message).toBe('Invalid value: 200: must be less than or equal to previous value');
    const unset = podUpdateErrors(
      old.spec,
      spec((s) => delete s.activeDeadlineSeconds),
    );
    expect(unset[0]?.message).toContain('must not update from a positive integer to nil value');
    const tol = podUpdateErrors(
      old.spec,
      spec((s) => (s.tolerations = [])),
    );
    expect(tol[0]?.field).toBe('spec');
    const cmd = podUpdateErrors(
      old.spec,
      spec((s) => ((s.containers as [{ command: string[] }])[0].command = ['x'])),
    );
    expect(cmd[0]?.message).toMatch(/^Forbidden: pod updates may not change fields other than /);
    expect(cmd[0]?.message).toContain('spec.containers[0].command[0]: "sh" -> "x"');
  });

  it('keeps uid, creation time and deletion fields; a different uid or resourceVersion is a conflict', () => {
    const current = { ...old, metadata: { ...old.metadata, resourceVersion: '7' } };
    const body = { ...old, metadata: { name: 'web', labels: { x: 'y' } } };
    const ok = checkPodUpdate(current, body, 'default', 'web');
    expect(ok.ok && ok.pod.metadata).toMatchObject({
      uid: 'u1',
      creationTimestamp: old.metadata.creationTimestamp,
      labels: { x: 'y' },
    });
    const uid = checkPodUpdate(
      current,
      { ...body, metadata: { name: 'web', uid: 'other' } },
      'default',
      'web',
    );
    expect(!uid.ok && uid.status.code).toBe(409);
    const rv = checkPodUpdate(
      current,
      { ...body, metadata: { name: 'web', resourceVersion: '6' } },
      'default',
      'web',
    );
    expect(!rv.ok && rv.status.code).toBe(409);
    const name = checkPodUpdate(current, { ...body, metadata: { name: 'other' } }, 'default', 'web');
    expect(!name.ok && name.status.code).toBe(400);
  });

  it('an update without spec, or without containers, is 422 Invalid (defaulting never sees it)', () => {
    for (const spec of [undefined, null, {}]) {
      const out = checkPodUpdate(
        old,
        { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec },
        'default',
        'web',
      );
      expect(!out.ok && out.status.code).toBe(422);
      expect(!out.ok && out.status.details?.causes?.[0]?.field).toMatch(/^spec(\.containers)?$/);
    }
  });
});
