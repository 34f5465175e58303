/**
 * The create path of a pod, shared by POST /api/v1/namespaces/:ns/pods and the startup examples:
 *
 *   parse (JSON, or YAML with aliases capped) → decodePod (strict fields) → validatePod → setPodDefaults
 *   → uid, namespace, creationTimestamp
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
export const MAX_YAML_ALIASES = 100;

export type Admission = { ok: true; pod: Pod } | { ok: false; status: Status };

/** Parses a request body: JSON when the content type says so, YAML (a superset) otherwise. */
export function parseManifest(
  text: string,
  contentType: string | undefined,
): { ok: true; value: unknown } | { ok: false; status: Status } {
  if (text.trim() === '')
    return { ok: false, status: badRequest('the request body is empty: expected a v1 Pod') };
  if (contentType && /\bjson\b/i.test(contentType)) {
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch (e) {
      return { ok: false, status: badRequest(`error decoding JSON: ${(e as Error).message}`) };
    }
  }
  try {
    const doc = parseDocument(text, { strict: true, uniqueKeys: true, prettyErrors: false });
    const first = doc.errors[0];
    if (first) return { ok: false, status: badRequest(`error converting YAML to JSON: ${first.message}`) };
    return { ok: true, value: doc.toJS({ maxAliasCount: MAX_YAML_ALIASES }) };
  } catch (e) {
    return { ok: false, status: badRequest(`error converting YAML to JSON: ${(e as Error).message}`) };
  }
}

/** Decodes, validates and defaults a parsed manifest for creation in `namespace`. */
export function admitPod(value: unknown, namespace: string, engine: Engine, clock: PassiveClock): Admission {
  const decoded = decodePod(value);
  if (!decoded.ok) return { ok: false, status: badRequest(decoded.message, decoded.causes) };
  const pod = decoded.pod;
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
