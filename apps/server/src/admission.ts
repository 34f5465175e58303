/**
 * The create path of a pod, shared by POST /api/v1/namespaces/:ns/pods and the startup examples:
 *
 *   media type (JSON or YAML, else 415) → parse (aliases and nesting capped) → decodePod (strict fields)
 *   → validatePod → name not taken (409) → setPodDefaults → uid, namespace, creationTimestamp
 *
 * Returns the pod ready for Engine.addPod, or the Status to answer with. Nothing is changed on failure.
 */
import { randomUUID } from 'node:crypto';
import type { Status } from '@syncscope/core/api';
import { type Pod, rfc3339 } from '@syncscope/core/api';
import { setPodDefaults } from '@syncscope/core/api/defaults';
import { decodePod, invalidMessage, validatePod } from '@syncscope/core/api/validation';
import type { PassiveClock } from '@syncscope/core/clock';
import { parseDocument } from 'yaml';
import type { Engine } from './engine.ts';
import { alreadyExists, badRequest, invalid } from './status.ts';

/** Aliases allowed in one manifest; a billion-laughs document needs far more and is refused. */
const MAX_YAML_ALIASES = 100;

/** Nesting allowed in one manifest. A real pod is under 20 deep; far deeper ones could not be echoed back. */
const MAX_MANIFEST_DEPTH = 100;

/** The media types a manifest may be sent as. text/plain is read as YAML (what a plain `curl` or form sends). */
export const MANIFEST_MEDIA_TYPES = [
  'application/json',
  'application/yaml',
  'application/x-yaml',
  'text/yaml',
  'text/x-yaml',
  'text/plain',
] as const;

/** 'json' or 'yaml' for an accepted Content-Type (parameters such as charset ignored), else undefined. */
export function manifestMediaType(contentType: string | undefined): 'json' | 'yaml' | undefined {
  const mt = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (mt === '') return 'yaml';
  if (!(MANIFEST_MEDIA_TYPES as readonly string[]).includes(mt)) return undefined;
  return mt === 'application/json' ? 'json' : 'yaml';
}

/** The nesting depth of a parsed value (a scalar is 0), counted without recursion; stops past `limit`. */
function depthOf(value: unknown, limit: number): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop() as [unknown, number];
    if (typeof v !== 'object' || v === null) continue;
    if (d + 1 > max) max = d + 1;
    if (max > limit) return max;
    for (const child of Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
}

const tooDeep = () =>
  badRequest(`the manifest is nested deeper than ${MAX_MANIFEST_DEPTH} levels: not a Pod`);

export type Admission = { ok: true; pod: Pod } | { ok: false; status: Status };

/** Parses a request body: JSON when the content type says so, YAML (a superset) otherwise. */
export function parseManifest(
  text: string,
  contentType: string | undefined,
): { ok: true; value: unknown } | { ok: false; status: Status } {
  if (text.trim() === '')
    return { ok: false, status: badRequest('the request body is empty: expected a v1 Pod') };
  if (manifestMediaType(contentType) === 'json') {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      return { ok: false, status: badRequest(`error decoding JSON: ${(e as Error).message}`) };
    }
    return depthOf(value, MAX_MANIFEST_DEPTH) > MAX_MANIFEST_DEPTH
      ? { ok: false, status: tooDeep() }
      : { ok: true, value };
  }
  try {
    const doc = parseDocument(text, { strict: true, uniqueKeys: true, prettyErrors: false });
    const first = doc.errors[0];
    if (first) return { ok: false, status: badRequest(`error converting YAML to JSON: ${first.message}`) };
    const value: unknown = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
    return depthOf(value, MAX_MANIFEST_DEPTH) > MAX_MANIFEST_DEPTH
      ? { ok: false, status: tooDeep() }
      : { ok: true, value };
  } catch (e) {
    return { ok: false, status: badRequest(`error converting YAML to JSON: ${(e as Error).message}`) };
  }
}

/** Decodes, validates and defaults a parsed manifest for creation in `namespace`. */
export function admitPod(value: unknown, namespace: string, engine: Engine, clock: PassiveClock): Admission {
  const decoded = decodePod(value);
  if (!decoded.ok) return { ok: false, status: badRequest(decoded.message, decoded.causes) };
  const pod = decoded.pod;
  // the decoder's refusals, before validation: another kind or version in the body is a bad request
  const wrongType = wrongTypeOf(pod);
  if (wrongType) return { ok: false, status: wrongType };
  // rest.BeforeCreate: a namespace in the body other than the URL's is a bad request, before validation
  const bodyNs = pod.metadata?.namespace;
  if (bodyNs !== undefined && bodyNs !== namespace) {
    const message = 'the namespace of the provided object does not match the namespace sent on the request';
    return {
      ok: false,
      status: badRequest(message, [
        {
          field: 'metadata.namespace',
          reason: 'FieldValueInvalid',
          message: `Invalid value: "${bodyNs}": ${message}`,
        },
      ]),
    };
  }
  const errs = validatePod(pod, namespace);
  const name = pod.metadata?.name ?? '';
  if (errs.length > 0) {
    return { ok: false, status: invalid(name, invalidMessage(name, errs), errs) };
  }
  if (engine.getPod(namespace, name)) return { ok: false, status: alreadyExists(name) };
  const defaulted = setPodDefaults(pod);
  defaulted.metadata = {
    ...defaulted.metadata,
    namespace,
    uid: randomUUID(),
    creationTimestamp: rfc3339(clock.now()),
  };
  delete defaulted.metadata.deletionTimestamp;
  delete defaulted.metadata.deletionGracePeriodSeconds;
  return { ok: true, pod: defaulted };
}

/**
 * A body of another version or kind than the pods endpoint's: the create handler's 400 ("the API version in
 * the data … does not match", or the codec's "… cannot be handled as a Pod"), naming the field.
 */
function wrongTypeOf(pod: { apiVersion?: unknown; kind?: unknown }): Status | undefined {
  const { apiVersion, kind } = pod;
  if (apiVersion !== undefined && apiVersion !== 'v1') {
    const message = `the API version in the data (${String(apiVersion)}) does not match the expected API version (v1)`;
    return badRequest(message, [
      {
        field: 'apiVersion',
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: ${JSON.stringify(apiVersion)}: supported values: "v1"`,
      },
    ]);
  }
  if (kind !== undefined && kind !== 'Pod') {
    const message = `${String(kind)} in version "v1" cannot be handled as a Pod: the body's kind is not Pod`;
    return badRequest(message, [
      {
        field: 'kind',
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: ${JSON.stringify(kind)}: supported values: "Pod"`,
      },
    ]);
  }
  return undefined;
}
