/**
 * checkDataDir: main.ts asks, before anything else starts, whether the data directory can hold the server's
 * state: it is created if missing, must be a directory, and must take a file being created, written, synced
 * and removed. Returns undefined when it can, else one line saying why ("data dir /x is not writable:
 * EROFS: read-only file system"), which main prints before exiting 1. Synchronous; leaves nothing behind.
 *
 * It also makes the directory private: it is created 0700, and at every start the directory, what lies
 * directly in it and the whole of the server's own trees in it (trace, store, pods, imports, tls) are
 * tightened to 0700 for directories and 0600 for files if looser, so a data dir written under a looser
 * umask is closed too; every writer creates its files and directories with those modes (FILE_MODE,
 * DIR_MODE). Pod specs carry env values, imports and container logs what the node said; nobody else on the
 * host has any business reading them.
 * Anything but a regular file where the https port's certificate or key belongs is moved aside.
 *
 * startFailure(err) is the one line main prints for anything else that ends a start (no stack).
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { servingCertPaths } from './kube-api/kube-tls.ts';
import { DIR_MODE, FILE_MODE, tightenMode } from './store/atomic-file.ts';
import { ensurePlainDir, setAsideIfNotPlain } from './store/plain-file.ts';

function reason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const msg = (e.message ?? String(err)).replace(/, \w+ '[^']*'$/, '');
  return e.code && !msg.startsWith(e.code) ? `${e.code}: ${msg}` : msg;
}

export function checkDataDir(
  dir: string,
  warn: (msg: string) => void = (msg) => console.warn(msg),
): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST')
      return `data dir ${dir} cannot be created: ${reason(err)}`;
  }
  try {
    if (!statSync(dir).isDirectory()) return `data dir ${dir} is not a directory`;
  } catch (err) {
    return `data dir ${dir} cannot be read: ${reason(err)}`;
  }
  const probe = join(dir, `.write-check.${process.pid}`);
  try {
    const fd = openSync(probe, 'w', 0o600);
    try {
      writeSync(fd, 'syncscope\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
      unlinkSync(probe);
    }
  } catch (err) {
    return `data dir ${dir} is not writable: ${reason(err)}`;
  }
  makePrivate(dir, warn);
  return clearServingCert(dir, warn);
}

/**
 * The https port's certificate and key are read with plain reads (kube-tls.ts): anything but a regular file
 * there (a FIFO would block the read for ever) is moved aside now, and the pair is made anew. One line
 * when even that fails.
 */
function clearServingCert(dataDir: string, warn: (msg: string) => void): string | undefined {
  const { dir, certFile, keyFile } = servingCertPaths(dataDir);
  try {
    if (!existsSync(dir)) return undefined;
    ensurePlainDir(dir, 'kube tls:', warn);
    for (const file of [certFile, keyFile]) setAsideIfNotPlain(file, 'kube tls:', warn);
    return undefined;
  } catch (err) {
    return startFailure(err);
  }
}

/**
 * The directories the server makes in its data dir, each its own tree (walked whole): the trace journal
 * (lifecycle.ts TRACE_DIR), the pod and namespace stores (store/), the simulated node's container logs (pods/,
 * the kubelet's podLogsDirectory), the imports (imports/) and the https port's certificate (tls/).
 */
const SERVER_TREES = ['trace', 'store', 'pods', 'imports', 'tls'];

/**
 * The data dir made private: itself and what lies directly in it, and the whole of the server's own trees
 * (SERVER_TREES): directories 0700, regular files 0600 (sockets and symlinks left, never followed). Linear in
 * what the trees hold, walked with a stack of paths.
 */
function makePrivate(dir: string, warn: (msg: string) => void): void {
  tightenMode(dir, DIR_MODE, warn);
  /** tightens one entry; whether it is a directory */
  const tighten = (path: string): boolean => {
    try {
      const st = lstatSync(path);
      if (st.isFile()) tightenMode(path, FILE_MODE, warn);
      else if (st.isDirectory()) {
        tightenMode(path, DIR_MODE, warn);
        return true;
      }
    } catch {
      // gone meanwhile
    }
    return false;
  };
  const stack: string[] = [];
  for (const name of entries(dir)) {
    const path = join(dir, name);
    if (tighten(path) && SERVER_TREES.includes(name)) stack.push(path);
  }
  for (let d = stack.pop(); d !== undefined; d = stack.pop())
    for (const name of entries(d)) {
      const path = join(d, name);
      if (tighten(path)) stack.push(path);
    }
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * The one line a start that failed prints (after `syncscope: `): the error's message, which names the file
 * and the cause (`ENOTDIR: not a directory, mkdir '/x/store/pods'`), its first line only, never the stack.
 */
export function startFailure(err: unknown): string {
  const e = err as Partial<NodeJS.ErrnoException> | undefined;
  const msg = typeof e?.message === 'string' && e.message !== '' ? e.message : String(err);
  const line = msg.split('\n')[0] as string;
  return e?.code && !line.startsWith(e.code) && e.syscall ? `${e.code}: ${line}` : line;
}
