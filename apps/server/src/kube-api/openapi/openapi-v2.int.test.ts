/**
 * /openapi/v2 over a real socket: the form `Accept` picks (JSON by default, gnostic's protobuf under either
 * spelling of its type, q-values ordering the choice, 406 only for types neither form is), one ETag for both
 * forms, and protobuf bytes that hold the JSON document: decoded back they give the same definitions and
 * operations, and read field by field with gnostic's numbers they carry what kubectl looks for.
 */
import { FakeClock } from '@syncscope/core/clock';
import { TraceRecorder } from '@syncscope/core/events/recorder';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createHttpApp } from '../../http.ts';
import { FakeEngine } from '../../testing.ts';
import { gnosticDocumentType } from './gnostic.ts';

const PB = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const PB_OLD = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

let app: FastifyInstance;
let base: string;

beforeAll(async () => {
  const clock = new FakeClock();
  app = await createHttpApp({ engine: new FakeEngine(clock), trace: new TraceRecorder(clock, 100), clock });
  await app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});
afterAll(() => app.close());

const v2 = (headers: Record<string, string> = {}) => fetch(`${base}/openapi/v2`, { headers });
const typeOf = async (accept: string) => {
  const res = await v2({ accept });
  await res.arrayBuffer();
  return res.status === 200 ? res.headers.get('content-type') : res.status;
};

type Json = Record<string, unknown>;
// biome-ignore lint/suspicious/noExplicitAny: the decoded message is walked by its proto field names
type Decoded = any;

/** A decoded gnostic Schema back in its JSON form. */
function schemaJson(m: Decoded): Json {
  const out: Json = {};
  if (m._ref) out.$ref = m._ref;
  if (m.type) out.type = m.type.value[0];
  if (m.format) out.format = m.format;
  if (m.properties)
    out.properties = Object.fromEntries(
      m.properties.additional_properties.map((n: Decoded) => [n.name, schemaJson(n.value)]),
    );
  if (m.items) out.items = schemaJson(m.items.schema[0]);
  if (m.additional_properties) out.additionalProperties = schemaJson(m.additional_properties.schema);
  if (m.required?.length) out.required = m.required;
  if (m.enum?.length) out.enum = m.enum.map((a: Decoded) => parse(a.yaml));
  for (const x of m.vendor_extension ?? []) out[x.name] = parse(x.value.yaml);
  return out;
}

/** The fields of one protobuf message, by number: length-delimited ones as bytes, varints as numbers. */
function wireFields(buf: Uint8Array): [number, Uint8Array | number][] {
  const out: [number, Uint8Array | number][] = [];
  let i = 0;
  const varint = () => {
    let n = 0;
    for (let shift = 0; ; shift += 7) {
      const b = buf[i++] as number;
      n += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return n;
    }
  };
  while (i < buf.length) {
    const key = varint();
    const wire = key & 7;
    if (wire === 0) out.push([key >>> 3, varint()]);
    else if (wire === 2) {
      const len = varint();
      out.push([key >>> 3, buf.subarray(i, i + len)]);
      i += len;
    } else throw new Error(`wire type ${wire} not expected in this document`);
  }
  return out;
}
const field = (buf: Uint8Array, n: number) =>
  wireFields(buf)
    .filter(([f]) => f === n)
    .map(([, v]) => v as Uint8Array);
const text = (b: Uint8Array | undefined) => new TextDecoder().decode(b);
/** The value (field 2) of the Named* pair (name field 1) called `name` among `pairs`. */
const pair = (pairs: Uint8Array[], name: string) =>
  field(pairs.find((p) => text(field(p, 1)[0]) === name) as Uint8Array, 2)[0] as Uint8Array;

describe('/openapi/v2 content negotiation', () => {
  it('is JSON by default and when asked, protobuf when asked under either spelling', async () => {
    expect(await typeOf('')).toBe('application/json');
    expect(await typeOf('application/json')).toBe('application/json');
    expect(await typeOf('*/*')).toBe('application/json');
    expect(await typeOf('application/*')).toBe('application/json');
    expect(await typeOf(PB_OLD)).toBe(PB);
    expect(await typeOf(PB)).toBe(PB);
  });

  it('orders by q-value, then a concrete type before a wildcard', async () => {
    expect(await typeOf(`application/json;q=0.5, ${PB};q=0.9`)).toBe(PB);
    expect(await typeOf(`${PB_OLD};q=0.5, application/json`)).toBe('application/json');
    expect(await typeOf(`*/*;q=0.8, ${PB_OLD};q=0.8`)).toBe(PB);
    expect(await typeOf('text/html, application/yaml;q=0.9, */*;q=0.1')).toBe('application/json');
  });

  it('is a 406 Status only for types neither form is', async () => {
    for (const accept of ['text/html', 'application/yaml', 'application/vnd.kubernetes.protobuf']) {
      const res = await v2({ accept });
      expect(res.status).toBe(406);
      expect(await res.json()).toMatchObject({ kind: 'Status', code: 406, reason: 'NotAcceptable' });
    }
  });

  it('gives both forms one ETag, told apart by Vary, and a 304 for a matching If-None-Match', async () => {
    const json = await v2();
    const pb = await v2({ accept: PB });
    await Promise.all([json.arrayBuffer(), pb.arrayBuffer()]);
    const etag = json.headers.get('etag') as string;
    expect(etag).toMatch(/^"[0-9A-F]{128}"$/);
    expect(pb.headers.get('etag')).toBe(etag);
    expect(pb.headers.get('vary')).toBe('Accept');
    for (const accept of [PB, 'application/json'])
      expect((await v2({ accept, 'if-none-match': `W/"x", ${etag}` })).status).toBe(304);
    const other = await v2({ accept: PB, 'if-none-match': '"x"' });
    expect(other.status).toBe(200);
    await other.arrayBuffer();
  });
});

describe('the protobuf form of /openapi/v2', () => {
  it('decodes to the JSON document: every definition and operation', async () => {
    const json = (await (await v2()).json()) as { definitions: Json; paths: Record<string, Json> };
    const bytes = new Uint8Array(await (await v2({ accept: PB_OLD })).arrayBuffer());
    const type = gnosticDocumentType();
    const doc = type.toObject(type.decode(bytes)) as Decoded;
    expect(doc.swagger).toBe('2.0');
    const definitions = Object.fromEntries(
      doc.definitions.additional_properties.map((n: Decoded) => [n.name, schemaJson(n.value)]),
    );
    expect(definitions).toEqual(json.definitions);
    expect(Object.keys(definitions)).toEqual(Object.keys(json.definitions));
    const paths = doc.paths.path as Decoded[];
    expect(paths.map((p) => p.name)).toEqual(Object.keys(json.paths));
    for (const { name, value } of paths)
      for (const [method, op] of Object.entries(json.paths[name] as Record<string, Decoded>)) {
        const got = value[method];
        expect(got.operation_id).toBe(op.operationId);
        const params = got.parameters.map((p: Decoded) => {
          const b = p.parameter.body_parameter;
          const q = p.parameter.non_body_parameter?.query_parameter_sub_schema;
          const at = p.parameter.non_body_parameter?.path_parameter_sub_schema;
          return b ? [b.name, b.in, schemaJson(b.schema)] : [(q ?? at).name, (q ?? at).in, (q ?? at).type];
        });
        expect(params).toEqual(
          op.parameters.map((p: Decoded) => [p.name, p.in, p.in === 'body' ? p.schema : p.type]),
        );
        const codes = got.responses.response_code.map((r: Decoded) => [
          r.name,
          schemaJson(r.value.response.schema.schema),
        ]);
        expect(codes).toEqual(Object.entries(op.responses).map(([c, r]) => [c, (r as Decoded).schema]));
        const ext = Object.fromEntries(
          got.vendor_extension.map((x: Decoded) => [x.name, parse(x.value.yaml)]),
        );
        expect(ext).toEqual({
          'x-kubernetes-action': op['x-kubernetes-action'],
          'x-kubernetes-group-version-kind': op['x-kubernetes-group-version-kind'],
        });
      }
  });

  it("carries the Pod's kind and fields at gnostic's field numbers", async () => {
    const bytes = new Uint8Array(await (await v2({ accept: PB })).arrayBuffer());
    expect(text(field(bytes, 1)[0])).toBe('2.0'); // Document.swagger
    const definitions = field(field(bytes, 9)[0] as Uint8Array, 1); // Document.definitions → NamedSchema
    const pod = pair(definitions, 'io.k8s.api.core.v1.Pod');
    expect(text(field(field(pod, 22)[0] as Uint8Array, 1)[0])).toBe('object'); // Schema.type → TypeItem.value
    const gvk = pair(field(pod, 31), 'x-kubernetes-group-version-kind'); // Schema.vendor_extension → Any
    expect(parse(text(field(gvk, 2)[0]))).toEqual([{ group: '', version: 'v1', kind: 'Pod' }]); // Any.yaml
    const props = field(field(pod, 25)[0] as Uint8Array, 1); // Schema.properties → NamedSchema
    expect(text(field(pair(props, 'spec'), 1)[0])).toBe('#/definitions/io.k8s.api.core.v1.PodSpec'); // _ref
    const spec = field(field(pair(definitions, 'io.k8s.api.core.v1.PodSpec'), 25)[0] as Uint8Array, 1);
    const containers = pair(spec, 'containers');
    const items = field(field(containers, 23)[0] as Uint8Array, 1)[0] as Uint8Array; // Schema.items → ItemsItem
    expect(text(field(items, 1)[0])).toBe('#/definitions/io.k8s.api.core.v1.Container');
    expect(parse(text(field(pair(field(containers, 31), 'x-kubernetes-patch-merge-key'), 2)[0]))).toBe(
      'name',
    );
    expect(field(pair(definitions, 'io.k8s.api.core.v1.Container'), 19).map(text)).toEqual(['name']); // required
  });
});
