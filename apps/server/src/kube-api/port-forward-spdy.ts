/**
 * SPDY/3.1 framing as a server reads and writes it (the SPDY/3 draft; Go's spdy package in
 * moby/spdystream, which client-go's port-forward speaks, tunnelled in WebSocket binary messages):
 *   - a frame is 8 bytes of head, then its payload: a control frame has the high bit set, the version (3),
 *     its type, flags and a 24-bit length; a data frame has a 31-bit stream id, flags (FIN 0x01), length;
 *   - SYN_STREAM and SYN_REPLY carry a name/value block (a 32-bit count, then each name and value with a
 *     32-bit length), compressed with zlib over the whole connection, one stream per direction, with the
 *     SPDY/3 preset dictionary. What the server writes it keeps as stored (uncompressed) deflate blocks,
 *     each followed by an empty one (the sync-flush marker), which any zlib reader takes.
 * FrameReader collects bytes into frames; HeaderInflater decompresses the client's blocks in order.
 */
import { constants, createInflate, type Inflate } from 'node:zlib';

const SPDY_VERSION = 3;
export const TYPE_SYN_STREAM = 1;
const TYPE_SYN_REPLY = 2;
export const TYPE_RST_STREAM = 3;
export const TYPE_PING = 6;
export const TYPE_GOAWAY = 7;
export const FLAG_FIN = 0x01;
/** RST_STREAM statuses. */
export const RST_PROTOCOL_ERROR = 1;
export const RST_CANCEL = 5;
/** The largest frame payload read; Go's client writes data frames of at most 32 KiB. */
const MAX_FRAME_BYTES = 1 << 20;

/** The SPDY/3 zlib preset dictionary (1423 bytes). */
const SPDY_DICTIONARY = Buffer.from(
  'AAAAB29wdGlvbnMAAAAEaGVhZAAAAARwb3N0AAAAA3B1dAAAAAZkZWxldGUAAAAFdHJhY2UAAAAGYWNjZXB0AAAADmFjY2Vw' +
    'dC1jaGFyc2V0AAAAD2FjY2VwdC1lbmNvZGluZwAAAA9hY2NlcHQtbGFuZ3VhZ2UAAAANYWNjZXB0LXJhbmdlcwAAAANhZ2UA' +
    'AAAFYWxsb3cAAAANYXV0aG9yaXphdGlvbgAAAA1jYWNoZS1jb250cm9sAAAACmNvbm5lY3Rpb24AAAAMY29udGVudC1iYXNl' +
    'AAAAEGNvbnRlbnQtZW5jb2RpbmcAAAAQY29udGVudC1sYW5ndWFnZQAAAA5jb250ZW50LWxlbmd0aAAAABBjb250ZW50LWxv' +
    'Y2F0aW9uAAAAC2NvbnRlbnQtbWQ1AAAADWNvbnRlbnQtcmFuZ2UAAAAMY29udGVudC10eXBlAAAABGRhdGUAAAAEZXRhZwAA' +
    'AAZleHBlY3QAAAAHZXhwaXJlcwAAAARmcm9tAAAABGhvc3QAAAAIaWYtbWF0Y2gAAAARaWYtbW9kaWZpZWQtc2luY2UAAAAN' +
    'aWYtbm9uZS1tYXRjaAAAAAhpZi1yYW5nZQAAABNpZi11bm1vZGlmaWVkLXNpbmNlAAAADWxhc3QtbW9kaWZpZWQAAAAIbG9j' +
    'YXRpb24AAAAMbWF4LWZvcndhcmRzAAAABnByYWdtYQAAABJwcm94eS1hdXRoZW50aWNhdGUAAAATcHJveHktYXV0aG9yaXph' +
    'dGlvbgAAAAVyYW5nZQAAAAdyZWZlcmVyAAAAC3JldHJ5LWFmdGVyAAAABnNlcnZlcgAAAAJ0ZQAAAAd0cmFpbGVyAAAAEXRy' +
    'YW5zZmVyLWVuY29kaW5nAAAAB3VwZ3JhZGUAAAAKdXNlci1hZ2VudAAAAAR2YXJ5AAAAA3ZpYQAAAAd3YXJuaW5nAAAAEHd3' +
    'dy1hdXRoZW50aWNhdGUAAAAGbWV0aG9kAAAAA2dldAAAAAZzdGF0dXMAAAAGMjAwIE9LAAAAB3ZlcnNpb24AAAAISFRUUC8x' +
    'LjEAAAADdXJsAAAABnB1YmxpYwAAAApzZXQtY29va2llAAAACmtlZXAtYWxpdmUAAAAGb3JpZ2luMTAwMTAxMjAxMjAyMjA1' +
    'MjA2MzAwMzAyMzAzMzA0MzA1MzA2MzA3NDAyNDA1NDA2NDA3NDA4NDA5NDEwNDExNDEyNDEzNDE0NDE1NDE2NDE3NTAyNTA0' +
    'NTA1MjAzIE5vbi1BdXRob3JpdGF0aXZlIEluZm9ybWF0aW9uMjA0IE5vIENvbnRlbnQzMDEgTW92ZWQgUGVybWFuZW50bHk0' +
    'MDAgQmFkIFJlcXVlc3Q0MDEgVW5hdXRob3JpemVkNDAzIEZvcmJpZGRlbjQwNCBOb3QgRm91bmQ1MDAgSW50ZXJuYWwgU2Vy' +
    'dmVyIEVycm9yNTAxIE5vdCBJbXBsZW1lbnRlZDUwMyBTZXJ2aWNlIFVuYXZhaWxhYmxlSmFuIEZlYiBNYXIgQXByIE1heSBK' +
    'dW4gSnVsIEF1ZyBTZXB0IE9jdCBOb3YgRGVjIDAwOjAwOjAwIE1vbiwgVHVlLCBXZWQsIFRodSwgRnJpLCBTYXQsIFN1biwg' +
    'R01UY2h1bmtlZCx0ZXh0L2h0bWwsaW1hZ2UvcG5nLGltYWdlL2pwZyxpbWFnZS9naWYsYXBwbGljYXRpb24veG1sLGFwcGxp' +
    'Y2F0aW9uL3hodG1sK3htbCx0ZXh0L3BsYWluLHRleHQvamF2YXNjcmlwdCxwdWJsaWNwcml2YXRlbWF4LWFnZT1nemlwLGRl' +
    'ZmxhdGUsc2RjaGNoYXJzZXQ9dXRmLThjaGFyc2V0PWlzby04ODU5LTEsdXRmLSwqLGVucT0wLg==',
  'base64',
);

export type Frame =
  | { control: true; type: number; flags: number; payload: Buffer }
  | { control: false; streamId: number; flags: number; payload: Buffer };

/** Collects the bytes of a connection into whole frames. */
export class FrameReader {
  private buf: Buffer = Buffer.alloc(0);

  /** The frames `chunk` completes; an error text when a frame is over MAX_FRAME_BYTES or not SPDY/3. */
  push(chunk: Buffer): Frame[] | { error: string } {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    const out: Frame[] = [];
    while (this.buf.length >= 8) {
      const length = this.buf.readUIntBE(5, 3);
      if (length > MAX_FRAME_BYTES) return { error: `a frame of ${length} bytes is over the limit` };
      if (this.buf.length < 8 + length) break;
      const flags = this.buf[4] as number;
      const payload = this.buf.subarray(8, 8 + length);
      const first = this.buf.readUInt32BE(0);
      if (first & 0x80000000) {
        const version = (first >>> 16) & 0x7fff;
        if (version !== SPDY_VERSION) return { error: `SPDY version ${version} is not served` };
        out.push({ control: true, type: first & 0xffff, flags, payload });
      } else out.push({ control: false, streamId: first, flags, payload });
      this.buf = this.buf.subarray(8 + length);
    }
    return out;
  }
}

function controlFrame(type: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE((0x8000 | SPDY_VERSION) * 0x10000 + type, 0);
  head.writeUInt32BE(flags * 0x1000000 + payload.length, 4);
  return Buffer.concat([head, payload]);
}

/** A data frame of `streamId`; `fin` ends the sender's side of the stream. */
export function dataFrame(streamId: number, data: Buffer, fin = false): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(streamId & 0x7fffffff, 0);
  head.writeUInt32BE((fin ? FLAG_FIN : 0) * 0x1000000 + data.length, 4);
  return Buffer.concat([head, data]);
}

export function rstStreamFrame(streamId: number, status: number): Buffer {
  const p = Buffer.alloc(8);
  p.writeUInt32BE(streamId & 0x7fffffff, 0);
  p.writeUInt32BE(status, 4);
  return controlFrame(TYPE_RST_STREAM, 0, p);
}

/** The answer to a PING: the same id back. */
export const pingFrame = (payload: Buffer): Buffer => controlFrame(TYPE_PING, 0, payload);

/** Writes the server's side of the header compression: stored blocks, the zlib head first. */
export class HeaderDeflater {
  private started = false;

  /** An empty name/value block (count 0), as the stored deflate blocks of this connection's stream. */
  emptyBlock(): Buffer {
    const raw = Buffer.alloc(4);
    const stored = Buffer.alloc(5);
    stored.writeUInt16LE(raw.length, 1);
    stored.writeUInt16LE(~raw.length & 0xffff, 3);
    const flush = Buffer.from([0, 0, 0, 0xff, 0xff]);
    // 0x78 0x01: deflate with a 32 KiB window, no preset dictionary needed to read stored blocks
    const head = this.started ? Buffer.alloc(0) : Buffer.from([0x78, 0x01]);
    this.started = true;
    return Buffer.concat([head, stored, raw, flush]);
  }
}

/** A SYN_REPLY of `streamId` with no headers. */
export function synReplyFrame(streamId: number, deflater: HeaderDeflater): Buffer {
  const id = Buffer.alloc(4);
  id.writeUInt32BE(streamId & 0x7fffffff, 0);
  return controlFrame(TYPE_SYN_REPLY, 0, Buffer.concat([id, deflater.emptyBlock()]));
}

/** Reads a name/value block: lower-case names to values (several values of a name are NUL-separated). */
export function parseHeaderBlock(b: Buffer): Map<string, string> | undefined {
  const out = new Map<string, string>();
  if (b.length < 4) return undefined;
  const count = b.readUInt32BE(0);
  let at = 4;
  for (let i = 0; i < count; i++) {
    if (at + 4 > b.length) return undefined;
    const nl = b.readUInt32BE(at);
    const name = b.subarray(at + 4, at + 4 + nl).toString('utf8');
    at += 4 + nl;
    if (at + 4 > b.length) return undefined;
    const vl = b.readUInt32BE(at);
    const value = b.subarray(at + 4, at + 4 + vl).toString('utf8');
    at += 4 + vl;
    if (at > b.length) return undefined;
    out.set(name, value);
  }
  return out;
}

/** Decompresses the client's name/value blocks, one zlib stream for the connection, in the order given. */
export class HeaderInflater {
  private readonly z: Inflate = createInflate({ dictionary: SPDY_DICTIONARY });
  private chunks: Buffer[] = [];
  private failed: Error | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor() {
    this.z.on('data', (c: Buffer) => this.chunks.push(c));
    this.z.on('error', (e: Error) => {
      this.failed = e;
    });
  }

  /** The block's bytes, decompressed; rejects once the stream is broken. */
  inflate(block: Buffer): Promise<Buffer> {
    const next = this.queue.then(
      () =>
        new Promise<Buffer>((resolve, reject) => {
          if (this.failed) return reject(this.failed);
          this.z.write(block);
          this.z.flush(constants.Z_SYNC_FLUSH, () => {
            if (this.failed) return reject(this.failed);
            const out = Buffer.concat(this.chunks);
            this.chunks = [];
            resolve(out);
          });
        }),
    );
    this.queue = next.catch(() => undefined);
    return next;
  }

  close(): void {
    this.z.destroy();
  }
}
