/**
 * Input that may be UTF-16 text: a log saved by Windows PowerShell 5.1 (`Get-Content … > kubelet.log`, `Out-File`,
 * which write UTF-16 LE with a byte-order mark), or by an editor as "Unicode". maybeFromUtf16 yields the chunks of
 * `source` as UTF-8 when its first two bytes are UTF-16's byte-order mark (ff fe little-endian, fe ff big-endian),
 * else as they are; the mark itself is dropped. What follows it is decoded as UTF-16 (a lone surrogate becomes
 * U+FFFD, as the UTF-8 reader does with a bad byte), so everything after this sees UTF-8 text, whatever the
 * file's encoding. Used by the import-log command and the server's import store, after any gzip is inflated.
 */

import { peek } from './peek.ts';

/** the encoding a byte-order mark at the start of `b` names, when it is UTF-16's */
export function utf16Of(b: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  if (b.length < 2) return undefined;
  if (b[0] === 0xff && b[1] === 0xfe) return 'utf-16le';
  if (b[0] === 0xfe && b[1] === 0xff) return 'utf-16be';
  return undefined;
}

export async function* maybeFromUtf16(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const { head, all } = await peek(source, 2);
  const encoding = utf16Of(head);
  if (!encoding) {
    yield* all;
    return;
  }
  // the decoder drops the mark and keeps an odd byte or half a surrogate pair for the next chunk
  const decoder = new TextDecoder(encoding);
  for await (const chunk of all) yield Buffer.from(decoder.decode(chunk, { stream: true }), 'utf8');
  const rest = decoder.decode();
  if (rest !== '') yield Buffer.from(rest, 'utf8');
}
