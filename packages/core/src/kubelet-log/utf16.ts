/**
 * UTF-16 text with a byte-order mark, as Windows PowerShell 5.1 saves it (`Get-Content … > kubelet.log`,
 * `Out-File`) or an editor's "Unicode": the importer reads UTF-8, so asUtf8 yields the bytes of such an input as
 * UTF-8, the mark dropped (a lone surrogate becomes U+FFFD, as the UTF-8 reader does with a bad byte), and any
 * other input as it is. Browser-safe (TextDecoder, TextEncoder); used by the import-log command and the server's
 * import store (after any gzip is inflated) and by the dashboard's parse worker.
 */

/** the encoding a byte-order mark at the start of `b` names, when it is UTF-16's */
export function utf16Of(b: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  if (b.length < 2) return undefined;
  if (b[0] === 0xff && b[1] === 0xfe) return 'utf-16le';
  if (b[0] === 0xfe && b[1] === 0xff) return 'utf-16be';
  return undefined;
}

export async function* asUtf8(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder();
  let decoder: TextDecoder | undefined;
  /** the input's first byte while it came alone: the mark is told by two */
  let held: Uint8Array | undefined;
  let told = false;
  for await (const chunk of source) {
    let bytes = chunk;
    if (!told) {
      if (held) {
        bytes = new Uint8Array(held.length + chunk.length);
        bytes.set(held);
        bytes.set(chunk, held.length);
        held = undefined;
      }
      if (bytes.length < 2) {
        held = bytes;
        continue;
      }
      told = true;
      const encoding = utf16Of(bytes);
      // the decoder drops the mark and keeps an odd byte or half a surrogate pair for the next chunk
      if (encoding) decoder = new TextDecoder(encoding);
    }
    yield decoder ? encoder.encode(decoder.decode(bytes, { stream: true })) : bytes;
  }
  if (held) yield held;
  const rest = decoder?.decode() ?? '';
  if (rest !== '') yield encoder.encode(rest);
}
