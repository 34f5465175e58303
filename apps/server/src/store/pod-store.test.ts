import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import type { Pod } from '@syncscope/core/api/v1';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PodStore } from './pod-store.ts';
import { newStoreDir, removeStoreDir } from './store-testing.ts';

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
    dir = newStoreDir('pods');
    warnings = [];
  });
  afterEach(() => removeStoreDir(dir));

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

  it('never trusts a stored pod to lead outside the data dir: bad names and a symlinked file are refused', () => {
    const store = open();
    store.put(pod('good', 'uid-good', '2026-01-01T12:00:00Z'));
    const tampered = (uid: string, change: (p: Pod) => void) => {
      const p = pod('x', uid, '2026-01-01T12:00:01Z');
      change(p);
      writeFileSync(join(dir, `${uid}.json`), JSON.stringify(p));
    };
    // each of these becomes part of a path: <podLogsDirectory>/<ns>_<name>_<uid>/<container>/
    tampered('uid-ns', (p) => {
      p.metadata.namespace = '../../../outside';
    });
    tampered('uid-name', (p) => {
      p.metadata.name = '../../outside';
    });
    tampered('uid-ctr', (p) => {
      (p.spec.containers[0] as { name: string }).name = '../../../../outside';
    });
    // a pod file that is a symlink to a file outside the data dir
    const outside = join(dir, '..', 'outside.json');
    writeFileSync(outside, JSON.stringify(pod('linked', 'uid-link', '2026-01-01T12:00:02Z')));
    symlinkSync(outside, join(dir, 'uid-link.json'));

    expect(
      open()
        .load()
        .map((p) => p.metadata.name),
    ).toEqual(['good']);
    expect(warnings).toEqual([
      `pod store: skipping ${join(dir, 'uid-ctr.json')}: spec.containers holds a container name "../../../../outside" that is not a valid name`,
      expect.stringMatching(
        new RegExp(
          `^pod store: ${join(dir, 'uid-link.json')} is a symlink, not expected there; moved to ${join(dir, 'uid-link.json')}\\.damaged-`,
        ),
      ),
      `pod store: skipping ${join(dir, 'uid-name.json')}: metadata.name "../../outside" is not a valid name`,
      `pod store: skipping ${join(dir, 'uid-ns.json')}: metadata.namespace "../../../outside" is not a valid namespace`,
    ]);
    expect(readFileSync(outside, 'utf8')).toContain('linked'); // the target is left alone
  });

  it('moves aside a directory where a pod file or the store should be, and starts', () => {
    mkdirSync(join(dir, 'uid-dir.json'), { recursive: true });
    const store = open();
    store.put(pod('good', 'uid-good', '2026-01-01T12:00:00Z'));
    expect(
      open()
        .load()
        .map((p) => p.metadata.name),
    ).toEqual(['good']);
    expect(warnings).toEqual([
      expect.stringMatching(
        /^pod store: .*uid-dir\.json is a directory, not expected there; moved to .*uid-dir\.json\.damaged-/,
      ),
    ]);

    // the store's directory itself is a file
    const other = join(dir, '..', 'other');
    writeFileSync(other, 'not a directory');
    warnings = [];
    new PodStore(other, { warn: (m) => warnings.push(m) }).put(pod('p', 'uid-p', '2026-01-01T12:00:00Z'));
    expect(statSync(other).isDirectory()).toBe(true);
    expect(warnings).toEqual([
      expect.stringMatching(/^pod store: .*other is a regular file, not expected there; moved to /),
    ]);
  });

  it('keeps pod specs private: files 0600 in a 0700 directory, looser ones tightened at load', () => {
    const store = open();
    store.put(pod('web', 'uid-web', '2026-01-01T12:00:00Z'));
    const mode = (p: string) => statSync(p).mode & 0o777;
    const file = join(dir, 'uid-web.json');
    expect(mode(dir)).toBe(0o700);
    expect(mode(file)).toBe(0o600);
    chmodSync(dir, 0o755);
    chmodSync(file, 0o644);
    open().load();
    expect(mode(dir)).toBe(0o700);
    expect(mode(file)).toBe(0o600);
  });
});
