import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from '@syncscope/core/api/v1';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PodStore } from './pod-store.ts';

function pod(name: string, uid: string, created: string, image = 'nginx:1.27'): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid, creationTimestamp: created, labels: { app: name } },
    spec: { containers: [{ name: 'main', image }] } as Pod['spec'],
  };
}

describe('PodStore', () => {
  let dir: string;
  let warnings: string[];
  const open = () => new PodStore(dir, { warn: (m) => warnings.push(m) });

  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), 'syncscope-pods-')), 'pods');
    warnings = [];
  });
  afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

  it('brings back every pod after a restart, without status, oldest first', () => {
    const store = open();
    const b = pod('web', 'uid-b', '2026-01-01T12:00:05Z');
    const a: Pod = {
      ...pod('db', 'uid-a', '2026-01-01T12:00:01Z'),
      status: { phase: 'Running' } as Pod['status'],
    };
    a.metadata.deletionTimestamp = '2026-01-01T12:01:00Z';
    a.metadata.deletionGracePeriodSeconds = 30;
    store.put(b);
    store.put(a);

    const loaded = open().load();
    expect(loaded.map((p) => p.metadata.name)).toEqual(['db', 'web']);
    expect(loaded[0]).not.toHaveProperty('status');
    expect(loaded[0]?.metadata).toEqual({
      name: 'db',
      namespace: 'default',
      uid: 'uid-a',
      creationTimestamp: '2026-01-01T12:00:01Z',
      labels: { app: 'db' },
      deletionTimestamp: '2026-01-01T12:01:00Z',
      deletionGracePeriodSeconds: 30,
    });
    expect(loaded[1]).toEqual(b);
    expect(warnings).toEqual([]);
  });

  it('replaces a pod on put and forgets it on remove', () => {
    const store = open();
    store.put(pod('web', 'uid-1', '2026-01-01T12:00:00Z', 'nginx:1.27'));
    store.put(pod('web', 'uid-1', '2026-01-01T12:00:00Z', 'nginx:1.28'));
    expect(
      open()
        .load()
        .map((p) => p.spec.containers[0]?.image),
    ).toEqual(['nginx:1.28']);

    store.remove('uid-1');
    store.remove('uid-never-stored');
    expect(open().load()).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('keeps the previous content when a write was cut off by a crash', () => {
    const store = open();
    store.put(pod('web', 'uid-1', '2026-01-01T12:00:00Z', 'nginx:1.27'));
    // what a kill -9 between writing the temp file and the rename leaves behind
    writeFileSync(join(dir, 'uid-1.json.4242.tmp'), '{"apiVersion":"v1","kind":"Pod","metadata":{"na');

    const loaded = open().load();
    expect(loaded.map((p) => p.spec.containers[0]?.image)).toEqual(['nginx:1.27']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('uid-1.json.4242.tmp');
    expect(existsSync(join(dir, 'uid-1.json.4242.tmp'))).toBe(false);
  });

  it('skips corrupt and mismatched files with a warning and loads the rest', () => {
    const store = open();
    store.put(pod('good', 'uid-good', '2026-01-01T12:00:00Z'));
    writeFileSync(join(dir, 'uid-torn.json'), '{"apiVersion":"v1","kind":"Po');
    writeFileSync(join(dir, 'uid-other.json'), JSON.stringify(pod('x', 'uid-x', '2026-01-01T12:00:00Z')));
    writeFileSync(
      join(dir, 'uid-event.json'),
      JSON.stringify({ apiVersion: 'v1', kind: 'Event', metadata: {} }),
    );

    expect(
      open()
        .load()
        .map((p) => p.metadata.name),
    ).toEqual(['good']);
    expect(warnings).toHaveLength(3);
    expect(warnings.join('\n')).toMatch(/uid-torn\.json/);
    expect(warnings.join('\n')).toMatch(/does not match the file name/);
    expect(warnings.join('\n')).toMatch(/not a v1 Pod/);
    // left in place for a human to look at
    expect(readFileSync(join(dir, 'uid-torn.json'), 'utf8')).toBe('{"apiVersion":"v1","kind":"Po');
  });

  it('refuses a uid that is not a plain file name', () => {
    const store = open();
    expect(() => store.put(pod('evil', '../escape', '2026-01-01T12:00:00Z'))).toThrow(/invalid metadata.uid/);
    expect(() => store.put(pod('none', '', '2026-01-01T12:00:00Z'))).toThrow(/invalid metadata.uid/);
    expect(() => store.remove('.hidden')).toThrow(/invalid metadata.uid/);
    expect(existsSync(join(dir, '..', 'escape.json'))).toBe(false);
  });
});
