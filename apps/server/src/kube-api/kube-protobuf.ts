/**
 * Request bodies in the apiserver's protobuf form (`application/vnd.kubernetes.protobuf`), which kubectl's
 * typed clients send (`kubectl create namespace`, `kubectl auth can-i`): the 4-byte `k8s\0` magic, then a
 * runtime.Unknown (typeMeta, raw, contentEncoding, contentType) whose `raw` is the object in the generated
 * messages' field numbers (k8s.io/api/.../generated.proto). Decoded into the JSON the routes read, for the
 * kinds those routes take; fields this server does not read are skipped. Linear in the body; the schemas
 * are fixed, so nesting is bounded by them.
 *
 * `protobufBodies` registers the parser for that media type (the body as bytes) in the caller's context;
 * `readObjectBody` reads a write's body in any of the forms the apiserver takes (JSON, YAML, protobuf).
 */
import type { Status } from '@syncscope/core/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MANIFEST_MEDIA_TYPES, manifestMediaType, parseManifest } from '../admission.ts';
import { BODY_LIMIT_BYTES } from '../context.ts';
import { badRequest, unsupportedMediaType } from '../status.ts';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
const MAGIC = [0x6b, 0x38, 0x73, 0x00];

/** A message's fields by number: a scalar string, a repeated string, a string map, or a message. */
type Field =
  | { name: string; type: 'string' | 'strings' | 'map' }
  | { name: string; type: 'message'; schema: Schema };
type Schema = Record<number, Field>;

const str = (name: string): Field => ({ name, type: 'string' });
const msg = (name: string, schema: Schema): Field => ({ name, type: 'message', schema });

const OBJECT_META: Schema = {
  1: str('name'),
  2: str('generateName'),
  3: str('namespace'),
  11: { name: 'labels', type: 'map' },
  12: { name: 'annotations', type: 'map' },
};
const TYPE_META: Schema = { 1: str('apiVersion'), 2: str('kind') };
const MAP_ENTRY: Schema = { 1: str('key'), 2: str('value') };

/** The objects the write routes take, by kind. */
const PROTOBUF_KINDS: Record<string, Schema> = {
  Namespace: {
    1: msg('metadata', OBJECT_META),
    2: msg('spec', { 1: { name: 'finalizers', type: 'strings' } }),
  },
  SelfSubjectAccessReview: {
    1: msg('metadata', OBJECT_META),
    2: msg('spec', {
      1: msg('resourceAttributes', {
        1: str('namespace'),
        2: str('verb'),
        3: str('group'),
        4: str('version'),
        5: str('resource'),
        6: str('subresource'),
        7: str('name'),
      }),
      2: msg('nonResourceAttributes', { 1: str('path'), 2: str('verb') }),
    }),
  },
  SelfSubjectRulesReview: { 1: msg('metadata', OBJECT_META), 2: msg('spec', { 1: str('namespace') }) },
};

class Reader {
  pos: number;
  constructor(
    private readonly buf: Buffer,
    start: number,
    readonly end: number,
  ) {
    this.pos = start;
  }
  varint(): number {
    let v = 0;
    for (let shift = 0; shift < 64; shift += 7) {
      if (this.pos >= this.end) throw new Error('truncated varint');
      const b = this.buf[this.pos++] as number;
      if (shift < 49) v += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return v;
    }
    throw new Error('varint too long');
  }
  bytes(): [number, number] {
    const n = this.varint();
    if (n > this.end - this.pos) throw new Error('truncated field');
    const at = this.pos;
    this.pos += n;
    return [at, at + n];
  }
  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 2) this.bytes();
    else if (wire === 1 || wire === 5) this.pos += wire === 1 ? 8 : 4;
    else throw new Error(`unsupported wire type ${wire}`);
    if (this.pos > this.end) throw new Error('truncated field');
  }
}

function decode(buf: Buffer, start: number, end: number, schema: Schema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const r = new Reader(buf, start, end);
  while (r.pos < r.end) {
    const tag = r.varint();
    const field = schema[Math.floor(tag / 8)];
    const wire = tag % 8;
    if (!field || wire !== 2) {
      r.skip(wire);
      continue;
    }
    const [a, b] = r.bytes();
    if (field.type === 'message') out[field.name] = decode(buf, a, b, field.schema);
    else if (field.type === 'string') out[field.name] = buf.toString('utf8', a, b);
    else if (field.type === 'strings') {
      const list = (out[field.name] as string[] | undefined) ?? [];
      list.push(buf.toString('utf8', a, b));
      out[field.name] = list;
    } else {
      const map = (out[field.name] as Record<string, unknown> | undefined) ?? {};
      const e = decode(buf, a, b, MAP_ENTRY);
      map[String(e.key ?? '')] = e.value ?? '';
      out[field.name] = map;
    }
  }
  return out;
}

/** The object a protobuf body carries, as JSON, for a route taking `kind`; or why it cannot be read. */
function decodeProtobuf(
  body: Buffer,
  kind: string,
): { ok: true; value: unknown } | { ok: false; message: string } {
  if (body.length < MAGIC.length || MAGIC.some((b, i) => body[i] !== b))
    return { ok: false, message: 'the body is not a Kubernetes protobuf object (no "k8s" magic)' };
  try {
    const unknown = decode(body, MAGIC.length, body.length, { 1: msg('typeMeta', TYPE_META) });
    const typeMeta = (unknown.typeMeta ?? {}) as { apiVersion?: string; kind?: string };
    const schema = PROTOBUF_KINDS[kind];
    if (!schema || (typeMeta.kind && typeMeta.kind !== kind))
      return { ok: false, message: `the object provided is unrecognized (must be of type ${kind})` };
    const raw = rawRange(body);
    const value = raw ? decode(body, raw[0], raw[1], schema) : {};
    return { ok: true, value: { ...typeMeta, ...value } };
  } catch (e) {
    return { ok: false, message: `error decoding protobuf: ${(e as Error).message}` };
  }
}

/** Where the Unknown's `raw` bytes are. */
function rawRange(body: Buffer): [number, number] | undefined {
  const r = new Reader(body, MAGIC.length, body.length);
  let found: [number, number] | undefined;
  while (r.pos < r.end) {
    const tag = r.varint();
    if (tag === (2 << 3) + 2) found = r.bytes();
    else r.skip(tag % 8);
  }
  return found;
}

/** Takes protobuf bodies (as bytes) in `app`'s context; every other body stays text (context.ts). */
export function protobufBodies(app: FastifyInstance): void {
  app.addContentTypeParser(
    PROTOBUF_MEDIA_TYPE,
    { parseAs: 'buffer', bodyLimit: BODY_LIMIT_BYTES },
    (_req, body, done) => done(null, body),
  );
}

/** The object a write's body carries (JSON, YAML or, where protobufBodies took it, protobuf) for `kind`. */
export function readObjectBody(
  req: FastifyRequest,
  kind: string,
): { ok: true; value: unknown } | { ok: false; status: Status } {
  if (Buffer.isBuffer(req.body)) {
    const got = decodeProtobuf(req.body, kind);
    return got.ok ? got : { ok: false, status: badRequest(got.message) };
  }
  const contentType = req.headers['content-type'];
  if (manifestMediaType(contentType) === undefined)
    return {
      ok: false,
      status: unsupportedMediaType(contentType ?? '', [...MANIFEST_MEDIA_TYPES, PROTOBUF_MEDIA_TYPE]),
    };
  const text = typeof req.body === 'string' ? req.body : '';
  if (text.trim() === '')
    return { ok: false, status: badRequest(`the request body is empty: expected a ${kind}`) };
  return parseManifest(text, contentType);
}
