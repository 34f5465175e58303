/**
 * Test support for the stores (pod store, trace journal, data-dir lock): a directory path in a temp dir of its
 * own, not made yet, as a store finds its directory on a first start.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** `<new temp dir>/<name>`; the store under test makes `<name>` itself. */
export function newStoreDir(name: string): string {
  return join(mkdtempSync(join(tmpdir(), `syncscope-${name}-`)), name);
}

/** Removes a newStoreDir with the temp dir around it. */
export function removeStoreDir(dir: string): void {
  rmSync(dirname(dir), { recursive: true, force: true });
}
