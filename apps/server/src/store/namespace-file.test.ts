import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NamespaceRecord } from '../kube-api/namespace-store.ts';
import { NamespaceFile } from './namespace-file.ts';

let root: string;
let path: string;
let warnings: string[];
const open = () => new NamespaceFile(path, (m) => warnings.push(m));

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'syncscope-nsfile-'));
  path = join(root, 'store', 'namespaces.json');
  warnings = [];
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const record = (name: string, deletion?: string): NamespaceRecord => ({
  name,
  uid: `uid-${name}`,
  created: '2026-01-01T00:00:00Z',
  resourceVersion: '7',
  labels: { team: 'a' },
  ...(deletion ? { deletion } : {}),
});

describe('NamespaceFile', () => {
  it('has nothing on a first start, then reads back what was saved, owner-only', () => {
    expect(open().load()).toBeUndefined();
    const saved = [record('team-a'), record('leaving', '2026-01-02T00:00:00Z')];
    open().save(saved);
    expect(open().load()).toEqual(saved);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(warnings).toEqual([]);
  });

  it('moves a damaged file aside with a warning naming it, and keeps nothing from it', () => {
    open().load();
    writeFileSync(path, '{"namespaces": [{"name": "tea');
    expect(open().load()).toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^namespace store: \S+namespaces\.json is damaged \(it is not a namespace list\), moved to \S+namespaces\.json\.damaged-\S+; only the system namespaces are kept$/,
    );
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(join(root, 'store')).some((n) => n.startsWith('namespaces.json.damaged-'))).toBe(true);
  });

  it('skips a malformed record (a name that is no DNS-1123 label) and keeps the rest', () => {
    open().load();
    writeFileSync(path, JSON.stringify({ namespaces: [record('ok'), { ...record('x'), name: '../up' }] }));
    expect(open().load()).toEqual([record('ok')]);
    expect(warnings[0]).toContain('holds a malformed namespace, skipped');
  });

  it('removes a temp file a crash left mid-save, keeping the file beside it', () => {
    open().save([record('kept')]);
    writeFileSync(`${path}.4242.tmp`, '{"namespaces": [');
    expect(open().load()).toEqual([record('kept')]);
    expect(readdirSync(join(root, 'store'))).toEqual(['namespaces.json']);
  });
});
