/**
 * The Swagger 2.0 document of documents.ts in its protobuf form: gnostic's `openapi.v2.Document` (the message
 * kube-openapi's handler marshals, and kubectl up to 1.26 asks /openapi/v2 for), encoded with protobufjs from
 * openapi-v2.proto. The JSON document is turned into that message field by field, as gnostic's compiler
 * does: maps become ordered Named* lists, `type` a TypeItem, `items` an ItemsItem, parameters the body /
 * query / path variants, and every `x-…` vendor extension a NamedAny holding its value as YAML (which kubectl
 * parses to read `x-kubernetes-group-version-kind` and the patch keys).
 *
 * A JSON key the message has no field for throws: the document is fixed, so a key added to it without a
 * field here fails the first build (and the tests), never silently drops out of the protobuf form.
 *
 * gnosticDocument(json) is pure; encodeGnosticV2(json) returns the bytes. Linear in the document.
 */
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs';
import { stringify } from 'yaml';

type Json = Record<string, unknown>;
/** A message as protobufjs encodes it: proto field names (keepCase), nested messages as objects. */
type Msg = Record<string, unknown>;
type Conv = (v: unknown, at: string) => unknown;

const GNOSTIC_V2_PROTO = fileURLToPath(new URL('./openapi-v2.proto', import.meta.url));

function object(v: unknown, at: string): Json {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new Error(`openapi v2: ${at} is not an object`);
  return v as Json;
}

function list(v: unknown, at: string): unknown[] {
  if (!Array.isArray(v)) throw new Error(`openapi v2: ${at} is not a list`);
  return v;
}

const plain: Conv = (v) => v;
/** A JSON value as gnostic's Any: its YAML text. */
const any: Conv = (v) => ({ yaml: stringify(v) });
const anys: Conv = (v, at) => list(v, at).map((x) => any(x, at));

/** `{name: value}` pairs as a Named* list, each value converted by `conv`. */
const named = (v: unknown, at: string, conv: Conv): Msg[] =>
  Object.entries(object(v, at)).map(([name, value]) => ({ name, value: conv(value, `${at}.${name}`) }));

/**
 * A message from JSON object `v`: each key through its entry in `fields` (proto field name and converter),
 * `x-…` keys into `vendor_extension`. Any other key throws.
 */
function message(v: unknown, at: string, fields: Record<string, readonly [string, Conv]>): Msg {
  const out: Msg = {};
  const extensions: Msg[] = [];
  for (const [key, value] of Object.entries(object(v, at))) {
    const field = fields[key];
    if (field) out[field[0]] = field[1](value, `${at}.${key}`);
    else if (key.startsWith('x-')) extensions.push({ name: key, value: any(value, at) });
    else throw new Error(`openapi v2: ${at} has no protobuf field for "${key}"`);
  }
  if (extensions.length > 0) out.vendor_extension = extensions;
  return out;
}

const schema: Conv = (v, at) =>
  message(v, at, {
    $ref: ['_ref', plain],
    format: ['format', plain],
    title: ['title', plain],
    description: ['description', plain],
    default: ['default', any],
    maximum: ['maximum', plain],
    minimum: ['minimum', plain],
    maxLength: ['max_length', plain],
    minLength: ['min_length', plain],
    pattern: ['pattern', plain],
    maxItems: ['max_items', plain],
    minItems: ['min_items', plain],
    uniqueItems: ['unique_items', plain],
    required: ['required', plain],
    enum: ['enum', anys],
    additionalProperties: [
      'additional_properties',
      (x, a) => (typeof x === 'boolean' ? { boolean: x } : { schema: schema(x, a) }),
    ],
    type: ['type', (x) => ({ value: Array.isArray(x) ? x : [x] })],
    items: ['items', (x, a) => ({ schema: Array.isArray(x) ? x.map((s) => schema(s, a)) : [schema(x, a)] })],
    allOf: ['all_of', (x, a) => list(x, a).map((s) => schema(s, a))],
    properties: ['properties', (x, a) => ({ additional_properties: named(x, a, schema) })],
    readOnly: ['read_only', plain],
    example: ['example', any],
  });

/** The fields shared by query and path parameters (query's also has allowEmptyValue). */
const NON_BODY = {
  required: ['required', plain],
  in: ['in', plain],
  description: ['description', plain],
  name: ['name', plain],
  type: ['type', plain],
  format: ['format', plain],
  uniqueItems: ['unique_items', plain],
} as const;

const parameter: Conv = (v, at) => {
  const where = object(v, at).in;
  if (where === 'body')
    return {
      parameter: {
        body_parameter: message(v, at, {
          description: ['description', plain],
          name: ['name', plain],
          in: ['in', plain],
          required: ['required', plain],
          schema: ['schema', schema],
        }),
      },
    };
  if (where === 'query')
    return {
      parameter: {
        non_body_parameter: {
          query_parameter_sub_schema: message(v, at, {
            ...NON_BODY,
            allowEmptyValue: ['allow_empty_value', plain],
          }),
        },
      },
    };
  if (where === 'path')
    return {
      parameter: {
        non_body_parameter: { path_parameter_sub_schema: message(v, at, NON_BODY) },
      },
    };
  throw new Error(`openapi v2: ${at} is a parameter "in" ${String(where)}, which has no protobuf form here`);
};

const parameters: Conv = (v, at) => list(v, at).map((p, i) => parameter(p, `${at}[${i}]`));

const response: Conv = (v, at) => ({
  response: message(v, at, {
    description: ['description', plain],
    schema: ['schema', (x, a) => ({ schema: schema(x, a) })],
  }),
});

/**
 * An object of named members and `x-…` extensions (Responses, Paths): the members as Named* pairs in field
 * `field`, each value converted by `conv`, the extensions in `vendor_extension`.
 */
function namedWithExtensions(v: unknown, at: string, field: string, conv: Conv): Msg {
  const entries = Object.entries(object(v, at));
  const extensions = entries.filter(([k]) => k.startsWith('x-'));
  return {
    [field]: entries
      .filter(([k]) => !k.startsWith('x-'))
      .map(([name, value]) => ({ name, value: conv(value, `${at}.${name}`) })),
    ...(extensions.length > 0
      ? { vendor_extension: extensions.map(([name, x]) => ({ name, value: any(x, at) })) }
      : {}),
  };
}

const responses: Conv = (v, at) => namedWithExtensions(v, at, 'response_code', response);

const operation: Conv = (v, at) =>
  message(v, at, {
    tags: ['tags', plain],
    summary: ['summary', plain],
    description: ['description', plain],
    operationId: ['operation_id', plain],
    produces: ['produces', plain],
    consumes: ['consumes', plain],
    parameters: ['parameters', parameters],
    responses: ['responses', responses],
    schemes: ['schemes', plain],
    deprecated: ['deprecated', plain],
  });

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

const pathItem: Conv = (v, at) =>
  message(v, at, {
    $ref: ['_ref', plain],
    ...Object.fromEntries(METHODS.map((m) => [m, [m, operation] as const])),
    parameters: ['parameters', parameters],
  });

/** The gnostic `openapi.v2.Document` of Swagger 2.0 document `doc`, in protobufjs's keepCase object form. */
function gnosticDocument(doc: Json): Msg {
  return message(doc, 'document', {
    swagger: ['swagger', plain],
    info: [
      'info',
      (x, a) =>
        message(x, a, {
          title: ['title', plain],
          version: ['version', plain],
          description: ['description', plain],
        }),
    ],
    paths: ['paths', (x, a) => namedWithExtensions(x, a, 'path', pathItem)],
    definitions: ['definitions', (x, a) => ({ additional_properties: named(x, a, schema) })],
  });
}

let documentType: protobuf.Type | undefined;

/** The protobufjs type of `openapi.v2.Document`, read from openapi-v2.proto on the first call. */
export function gnosticDocumentType(): protobuf.Type {
  documentType ??= new protobuf.Root()
    .loadSync(GNOSTIC_V2_PROTO, { keepCase: true })
    .lookupType('openapi.v2.Document');
  return documentType;
}

/** The protobuf bytes of Swagger 2.0 document `doc`. Throws on a key the message cannot hold. */
export function encodeGnosticV2(doc: Json): Uint8Array {
  const type = gnosticDocumentType();
  const msg = gnosticDocument(doc);
  const problem = type.verify(msg);
  if (problem) throw new Error(`openapi v2: the protobuf document is not valid: ${problem}`);
  return type.encode(msg).finish();
}
