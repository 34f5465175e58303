/**
 * The tar format as the simulated node's `tar` writes and reads it: POSIX ustar headers of 512 bytes, the
 * data padded to a whole block, two zero blocks at the end. A name too long for ustar's name and prefix
 * fields travels in a PAX extended header (`path=`), as Go's archive/tar and GNU tar read it; on reading,
 * PAX `path` records and GNU long names (type `L`) are taken, global headers skipped. Pure: bytes in and out.
 */

const BLOCK = 512;
const TYPE_FILE = '0';
const TYPE_FILE_OLD = '\0';
const TYPE_DIR = '5';
const TYPE_PAX = 'x';
const TYPE_PAX_GLOBAL = 'g';
const TYPE_GNU_LONG_NAME = 'L';

/** One member: a regular file (with its data) or a directory. */
export interface TarEntry {
  name: string;
  type: 'file' | 'dir' | 'other';
  /** Permission bits. */
  mode: number;
  /** Seconds since the epoch. */
  mtime: number;
  data: Buffer;
}

const octal = (n: number, width: number) => `${n.toString(8).padStart(width - 1, '0')}\0`;

function header(name: string, type: string, mode: number, size: number, mtime: number): Buffer | null {
  const h = Buffer.alloc(BLOCK);
  const full = Buffer.from(name);
  let nameBytes = full;
  let prefix = Buffer.alloc(0);
  if (full.length > 100) {
    // the last '/' that leaves a name of at most 100 bytes and a prefix of at most 155
    const cut = full.lastIndexOf(0x2f, 155);
    if (cut <= 0 || full.length - cut - 1 > 100 || full.length - cut - 1 === 0) return null;
    prefix = full.subarray(0, cut);
    nameBytes = full.subarray(cut + 1);
  }
  nameBytes.copy(h, 0);
  h.write(octal(mode & 0o7777, 8), 100, 'latin1');
  h.write(octal(0, 8), 108, 'latin1');
  h.write(octal(0, 8), 116, 'latin1');
  h.write(octal(size, 12), 124, 'latin1');
  h.write(octal(Math.max(0, Math.floor(mtime)), 12), 136, 'latin1');
  h.write(type, 156, 'latin1');
  h.write('ustar\0', 257, 'latin1');
  h.write('00', 263, 'latin1');
  h.write('root', 265, 'latin1');
  h.write('root', 297, 'latin1');
  prefix.copy(h, 345);
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return h;
}

const padding = (size: number) => Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);

/** `n path=value\n`, n counting the whole record including its own digits. */
function paxRecord(key: string, value: string): Buffer {
  const body = ` ${key}=${value}\n`;
  const len = Buffer.byteLength(body);
  let n = len + String(len).length;
  if (String(n).length !== String(len).length) n = len + String(n).length;
  return Buffer.from(`${n}${body}`);
}

/** The archive of `entries`, in order (directories' names end in '/'). */
export function writeTar(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const type = e.type === 'dir' ? TYPE_DIR : TYPE_FILE;
    const size = e.type === 'dir' ? 0 : e.data.length;
    let h = header(e.name, type, e.mode, size, e.mtime);
    if (!h) {
      const pax = paxRecord('path', e.name);
      const base = e.name.replace(/\/$/, '').split('/').pop() ?? 'x';
      parts.push(header(`PaxHeaders/${base}`.slice(0, 100), TYPE_PAX, 0o644, pax.length, e.mtime) as Buffer);
      parts.push(pax, padding(pax.length));
      h = header(e.name.replace(/[^\x20-\x7e]/g, '_').slice(0, 99), type, e.mode, size, e.mtime) as Buffer;
    }
    parts.push(h);
    if (size > 0) parts.push(e.data, padding(size));
  }
  parts.push(Buffer.alloc(2 * BLOCK));
  return Buffer.concat(parts);
}

/** Reads a NUL-terminated field. */
const field = (b: Buffer, at: number, len: number) => {
  const f = b.subarray(at, at + len);
  const end = f.indexOf(0);
  return (end >= 0 ? f.subarray(0, end) : f).toString('utf8');
};
const numeric = (b: Buffer, at: number, len: number) => Number.parseInt(field(b, at, len).trim() || '0', 8);

function paxPath(data: Buffer): string | undefined {
  let path: string | undefined;
  let at = 0;
  while (at < data.length) {
    const sp = data.indexOf(0x20, at);
    if (sp < 0) break;
    const n = Number.parseInt(data.subarray(at, sp).toString('latin1'), 10);
    if (!(n > 0)) break;
    const rec = data.subarray(sp + 1, at + n - 1).toString('utf8');
    const eq = rec.indexOf('=');
    if (rec.slice(0, eq) === 'path') path = rec.slice(eq + 1);
    at += n;
  }
  return path;
}

/** The members of `archive`, or the reason it cannot be read (the words busybox tar uses). */
export function readTar(archive: Buffer): TarEntry[] | { error: string } {
  const out: TarEntry[] = [];
  let nextName: string | undefined;
  for (let at = 0; at + BLOCK <= archive.length; ) {
    const h = archive.subarray(at, at + BLOCK);
    if (h.every((b) => b === 0)) return out;
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (h[i] as number);
    if (sum !== numeric(h, 148, 8)) return { error: 'invalid tar header checksum' };
    const size = numeric(h, 124, 12);
    const type = String.fromCharCode(h[156] as number);
    const dataAt = at + BLOCK;
    if (dataAt + size > archive.length) return { error: 'short read' };
    const data = archive.subarray(dataAt, dataAt + size);
    at = dataAt + size + padding(size).length;
    if (type === TYPE_PAX) {
      nextName = paxPath(data) ?? nextName;
      continue;
    }
    if (type === TYPE_GNU_LONG_NAME) {
      nextName = field(data, 0, data.length);
      continue;
    }
    if (type === TYPE_PAX_GLOBAL) continue;
    const magic = field(h, 257, 6);
    const prefix = magic === 'ustar' ? field(h, 345, 155) : '';
    const name = nextName ?? (prefix ? `${prefix}/${field(h, 0, 100)}` : field(h, 0, 100));
    nextName = undefined;
    const kind = type === TYPE_FILE || type === TYPE_FILE_OLD ? 'file' : type === TYPE_DIR ? 'dir' : 'other';
    out.push({ name, type: kind, mode: numeric(h, 100, 8), mtime: numeric(h, 136, 12), data });
  }
  // an archive cut before its end blocks: what was read is kept, as tar does
  return out;
}
