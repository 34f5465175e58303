/** UTF-8 byte lengths: what Go's len() counts of a string, and what a byte-counted format declares. */

const encoder = new TextEncoder();

/** Length of `s` in bytes, UTF-8 encoded (Go's len()). */
export function byteLength(s: string): number {
  return encoder.encode(s).length;
}
