/**
 * NamespaceFile: the namespaces the API created, kept in one small file, `<dataDir>/store/namespaces.json`,
 * so that a restart (even `kill -9`) brings back each one as it was acknowledged: Active, or Terminating
 * while pods of it are left. A namespace removed is a file without it.
 *
 * One file for all rather than one per namespace (as pods have): a cluster has a few namespaces, each a few
 * hundred bytes, so rewriting the whole list costs no more than one pod file, and the list is always one
 * consistent state. Not the trace journal: the journal is the history of what the kubelet did, read back as
 * events; this is desired state, like the pod store beside it.
 *
 * Contract: save() is synchronous and durable when it returns (writeFileAtomicSync: temp, fsync, rename,
 * directory fsync); it throws a StatusError (507/503) when the disk refuses (full, read-only, I/O error), and the
 * file is then as it was. load() never throws on bad content: a missing file is undefined; a file that does
 * not parse or holds no list is moved aside as `namespaces.json.damaged-<time>` with a warning, and is
 * undefined too; a malformed record in a good list is skipped with a warning. The file is 0600.
 */
import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { NamespaceKeeper, NamespaceRecord } from '../kube-api/namespace-store.ts';
import { StatusError } from '../status.ts';
import { isTempFile, removeFileDurableSync, writeFileAtomicSync } from './atomic-file.ts';
import { errorText } from './damage.ts';
import { ensurePlainDir, moveAside, readPlainFile } from './plain-file.ts';
import { StoreWriteError, storeFailureStatus } from './write-error.ts';

/** Where in the data dir the namespaces are kept, beside the pods (POD_STORE_DIR). */
export const NAMESPACE_FILE = join('store', 'namespaces.json');

const WHAT = 'namespace store:';
/** A namespace name (a DNS-1123 label), as the API checks it. */
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function record(v: unknown): NamespaceRecord | undefined {
  if (!isObject(v)) return undefined;
  const { name, uid, created, resourceVersion, labels, annotations, deletion } = v;
  const strings = (m: unknown) => isObject(m) && Object.values(m).every((l) => typeof l === 'string');
  if (typeof name !== 'string' || !DNS1123_LABEL.test(name)) return undefined;
  if (typeof uid !== 'string' || typeof created !== 'string' || typeof resourceVersion !== 'string')
    return undefined;
  if (!strings(labels) || (annotations !== undefined && !strings(annotations))) return undefined;
  if (deletion !== undefined && typeof deletion !== 'string') return undefined;
  return {
    name,
    uid,
    created,
    resourceVersion,
    labels: labels as Record<string, string>,
    ...(annotations !== undefined ? { annotations: annotations as Record<string, string> } : {}),
    ...(deletion !== undefined ? { deletion } : {}),
  };
}

export class NamespaceFile implements NamespaceKeeper {
  constructor(
    readonly path: string,
    readonly warn: (msg: string) => void = (msg) => console.warn(msg),
  ) {
    ensurePlainDir(dirname(path), WHAT, warn);
  }

  /** The namespaces kept, or undefined when there is no usable file (the first start, or damage). */
  load(): NamespaceRecord[] | undefined {
    // a temp file left by a crash mid-save: the file beside it is whole, the old state or the new
    const base = `${basename(this.path)}.`;
    try {
      for (const name of readdirSync(this.dir()))
        if (name.startsWith(base) && isTempFile(name)) removeFileDurableSync(join(this.dir(), name));
    } catch (err) {
      this.warn(`${WHAT} cannot remove a temp file in ${this.dir()}: ${errorText(err)}`);
    }
    let bytes: Buffer | undefined;
    try {
      bytes = readPlainFile(this.path, WHAT, this.warn);
    } catch (err) {
      this.warn(`${WHAT} cannot read ${this.path}: ${errorText(err)}; only the system namespaces are kept`);
      return undefined;
    }
    if (bytes === undefined) return undefined;
    let list: unknown;
    try {
      list = (JSON.parse(bytes.toString('utf8')) as { namespaces?: unknown }).namespaces;
    } catch {
      list = undefined;
    }
    if (!Array.isArray(list)) return this.damaged('it is not a namespace list');
    const out: NamespaceRecord[] = [];
    for (const v of list) {
      const r = record(v);
      if (r) out.push(r);
      else this.warn(`${WHAT} ${this.path} holds a malformed namespace, skipped: ${JSON.stringify(v)}`);
    }
    return out;
  }

  /**
   * Replaces what is kept with `records`, durably. A refusal of the disk throws a StatusError naming the file
   * and the cause (storeFailureStatus: 507 for no space, else 503), as a refused pod write does.
   */
  save(records: readonly NamespaceRecord[]): void {
    const text = `${JSON.stringify({ namespaces: records })}\n`;
    try {
      writeFileAtomicSync(this.path, text);
    } catch (err) {
      if (!StoreWriteError.isSystem(err)) throw err;
      throw new StatusError(storeFailureStatus(StoreWriteError.from(err, this.path, 'namespace store')));
    }
  }

  private damaged(why: string): undefined {
    let where = 'left in place';
    try {
      where = `moved to ${moveAside(this.path)}`;
    } catch (err) {
      where = `which cannot be moved aside (${errorText(err)})`;
    }
    this.warn(`${WHAT} ${this.path} is damaged (${why}), ${where}; only the system namespaces are kept`);
    return undefined;
  }

  private dir(): string {
    return dirname(this.path);
  }
}
