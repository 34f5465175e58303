import type { Status } from '@syncscope/core/api';
import { status } from '../status.ts';

/**
 * A write the disk refused, for any of the server's stores (pods, imports). `code` is the errno name (ENOSPC,
 * EDQUOT, EROFS, EIO, ...); the message names the store, the file and the cause in the system's words, e.g.
 * `imports: cannot write /data/imports/.tmp-…/trace.ndjson: no space left on device`. The API answers it with
 * storeFailureStatus (lifecycle.ts): 507 for no space, 503 for any other refusal.
 */
export class StoreWriteError extends Error {
  constructor(
    readonly code: string,
    readonly path: string,
    cause: string,
    store = 'pod store',
  ) {
    super(`${store}: cannot write ${path}: ${cause}`);
  }

  static from(err: unknown, path: string, store?: string): StoreWriteError {
    const e = err as NodeJS.ErrnoException;
    // Node's message is "ENOSPC: no space left on device, write": keep the words between code and call
    const words = /^[A-Z0-9]+: ([^,]+)/.exec(e.message ?? '')?.[1] ?? e.message ?? String(err);
    return new StoreWriteError(e.code ?? 'EIO', path, words, store);
  }

  /** True for an error the file system raised (it names a system call), as opposed to one of ours. */
  static isSystem(err: unknown): err is NodeJS.ErrnoException {
    return typeof (err as NodeJS.ErrnoException | undefined)?.syscall === 'string';
  }
}

/** No space (or quota) is 507 Insufficient Storage; any other refusal of the disk is 503. */
const OUT_OF_SPACE = new Set(['ENOSPC', 'EDQUOT']);

/** The Status a request gets when what it sent could not be stored: the cause named, nothing changed. */
export function storeFailureStatus(err: StoreWriteError): Status {
  return OUT_OF_SPACE.has(err.code)
    ? status(507, 'InsufficientStorage', err.message)
    : status(503, 'ServiceUnavailable', err.message);
}
