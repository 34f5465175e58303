/**
 * Input that may be gzip-compressed: a rotated log (`kubelet.log.1.gz`, what logrotate leaves under /var/log), a
 * `.gz` file posted to the server. maybeGunzip yields the chunks of `source` inflated when its first two bytes
 * are gzip's magic (1f 8b), else as they are. Concatenated members (`cat a.gz b.gz`) read as one stream, as
 * gunzip reads them. A damaged stream throws a GzipError with zlib's words for what is wrong; a caller that stops
 * iterating stops the inflating too, so a bomb is read only as far as the caller's limit.
 * Used by the import-log command (files and stdin) and the server's import store.
 */
import { pipeline, Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** The input began as gzip but cannot be inflated; the message is zlib's ("incorrect header check", …). */
export class GzipError extends Error {}

export const isGzip = (b: Uint8Array): boolean => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;

export interface GunzipOptions {
  /**
   * The compressed stream ended before its end (a file copied while it was written, a download cut short):
   * called, and the iteration ends with what it held. Without it that is an error like any other damage.
   */
  onCut?(): void;
}

export async function* maybeGunzip(
  source: AsyncIterable<Buffer | string>,
  o: GunzipOptions = {},
): AsyncGenerator<Buffer> {
  const it = source[Symbol.asyncIterator]();
  let head = Buffer.alloc(0);
  let done = false;
  while (head.length < 2) {
    const r = await it.next();
    if (r.done) {
      done = true;
      break;
    }
    head = Buffer.concat([head, typeof r.value === 'string' ? Buffer.from(r.value) : r.value]);
  }
  async function* all(): AsyncGenerator<Buffer> {
    if (head.length > 0) yield head;
    if (!done)
      for (let r = await it.next(); !r.done; r = await it.next())
        yield typeof r.value === 'string' ? Buffer.from(r.value) : r.value;
  }
  if (!isGzip(head)) {
    yield* all();
    return;
  }
  const inflated = createGunzip();
  // an error of the source or of the inflating ends the iteration below with it
  pipeline(Readable.from(all()), inflated, () => {});
  try {
    for await (const chunk of inflated) yield chunk as Buffer;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? '';
    // zlib's "unexpected end of file"
    if (code === 'Z_BUF_ERROR' && o.onCut) o.onCut();
    else throw code.startsWith('Z_') ? new GzipError((e as Error).message) : e;
  }
}
