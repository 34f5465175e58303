/**
 * A pod update (PUT, or the result of a PATCH) checked as the apiserver checks it (pkg/registry/core/pod
 * strategy PrepareForUpdate, pkg/apis/core/validation ValidatePodUpdate):
 *
 *   decode (strict fields) → name and namespace as in the URL → uid, if given, the pod's (409 otherwise)
 *   → resourceVersion, if given, the pod's (409) → defaults → the create rules (validatePod) → only the
 *   fields a pod may change: container and init container images, activeDeadlineSeconds (set or lowered,
 *   never removed), tolerations (additions only), terminationGracePeriodSeconds (to 1 from negative);
 *   metadata's labels and annotations freely.
 *
 * Returns the pod to store (uid, creationTimestamp and the deletion fields of the old one; no status, which
 * is the node's), or the Status to answer with. A refused field is 422 Invalid with the apiserver's words.
 */

import type { Pod, PodSpec, Status } from '@syncscope/core/api';
import { setPodDefaults } from '@syncscope/core/api/defaults';
import type { FieldError } from '@syncscope/core/api/validation';
import { decodePod, invalidMessage, validatePod } from '@syncscope/core/api/validation';
import { badRequest, status } from '../status.ts';
import { canonical, jsonEqual } from './patch.ts';

const UPDATABLE_POD_SPEC_FIELDS = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];

export type Update = { ok: true; pod: Pod } | { ok: false; status: Status };

/** 422 Invalid, as errors.NewInvalid words it for a pod. */
export function invalidUpdate(name: string, errs: FieldError[]): Status {
  return status(422, 'Invalid', invalidMessage(name, errs), { name, kind: 'Pod', causes: errs });
}

/** 409 Conflict, as errors.NewConflict words it for a pod. */
export function conflict(name: string, why: string): Status {
  return status(409, 'Conflict', `Operation cannot be fulfilled on pods "${name}": ${why}`, {
    name,
    kind: 'pods',
  });
}

export const MODIFIED =
  'the object has been modified; please apply your changes to the latest version and try again';

/** Lines of specDiff at most: the message says what changed, not all of it (a list may be 10,000 long). */
const MAX_DIFF_LINES = 20;

/** A value of a diff line, cut after MAX_DIFF_VALUE characters. */
const MAX_DIFF_VALUE = 200;
const shortened = (s: string) => (s.length > MAX_DIFF_VALUE ? `${s.slice(0, MAX_DIFF_VALUE)}…` : s);

/**
 * The paths where two specs differ, one a line, as a short account of what the update tried to change:
 * at most MAX_DIFF_LINES of them, then `…`.
 */
function specDiff(a: unknown, b: unknown, path: string, out: string[]): void {
  if (out.length > MAX_DIFF_LINES) return;
  if (jsonEqual(a, b)) return;
  if (out.length === MAX_DIFF_LINES) {
    out.push('  …');
    return;
  }
  const isObj = (v: unknown) => typeof v === 'object' && v !== null;
  if (isObj(a) && isObj(b) && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a as object), ...Object.keys(b as object)]);
    for (const k of keys) {
      const sub = Array.isArray(a) ? `${path}[${k}]` : `${path}.${k}`;
      specDiff((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], sub, out);
    }
    return;
  }
  out.push(`  ${path}: ${shortened(canonical(a))} -> ${shortened(canonical(b))}`);
}

/** The errors of ValidatePodUpdate's spec rules for old → next (both defaulted). */
export function podUpdateErrors(old: PodSpec, next: PodSpec): FieldError[] {
  const errs: FieldError[] = [];
  const ads = next.activeDeadlineSeconds;
  const oldAds = old.activeDeadlineSeconds;
  if (ads !== undefined && ads !== null) {
    if (oldAds !== undefined && oldAds !== null && oldAds < ads) {
      errs.push({
        field: 'spec.activeDeadlineSeconds',
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${ads}: must be less than or equal to previous value`,
      });
      return errs;
    }
  } else if (oldAds !== undefined && oldAds !== null) {
    errs.push({
      field: 'spec.activeDeadlineSeconds',
      reason: 'FieldValueInvalid',
      message: 'Invalid value: "null": must not update from a positive integer to nil value',
    });
  }
  // the spec as it would be with only the updatable fields changed back: anything else left is forbidden
  const munged: PodSpec = structuredClone(next);
  const images = (mine: PodSpec['containers'] | undefined, theirs: PodSpec['containers'] | undefined) => {
    if (!mine || !theirs || mine.length !== theirs.length) return;
    mine.forEach((c, i) => {
      const o = theirs[i];
      if (o) c.image = o.image;
    });
  };
  images(munged.containers, old.containers);
  images(munged.initContainers, old.initContainers);
  munged.activeDeadlineSeconds = old.activeDeadlineSeconds;
  // tolerations are kept by the schema without a type of their own
  const tol = (s: PodSpec) => s as PodSpec & { tolerations?: unknown[] };
  const oldTol = tol(old).tolerations ?? [];
  const newTol = tol(munged).tolerations ?? [];
  if (oldTol.every((t, i) => jsonEqual(t, newTol[i]))) tol(munged).tolerations = tol(old).tolerations;
  const oldGrace = old.terminationGracePeriodSeconds;
  if (oldGrace !== undefined && oldGrace < 0 && munged.terminationGracePeriodSeconds === 1)
    munged.terminationGracePeriodSeconds = oldGrace;
  if (!jsonEqual(munged, old)) {
    const diff: string[] = [];
    specDiff(old, munged, 'spec', diff);
    errs.push({
      field: 'spec',
      reason: 'FieldValueForbidden',
      message: `Forbidden: pod updates may not change fields other than ${UPDATABLE_POD_SPEC_FIELDS.join(',')}\n${diff.join('\n')}`,
    });
  }
  return errs;
}

/** `old` is the pod as the API holds it (status ignored); `body` the parsed new object. */
export function checkPodUpdate(old: Pod, body: unknown, namespace: string, name: string): Update {
  const decoded = decodePod(body);
  if (!decoded.ok) return { ok: false, status: badRequest(decoded.message, decoded.causes) };
  const pod = decoded.pod;
  const meta = pod.metadata ?? ({} as Pod['metadata']);
  if (meta.name !== undefined && meta.name !== name)
    return {
      ok: false,
      status: badRequest(
        `the name of the object (${meta.name}) does not match the name on the URL (${name})`,
      ),
    };
  if (meta.namespace !== undefined && meta.namespace !== namespace)
    return {
      ok: false,
      status: badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      ),
    };
  const uid = old.metadata.uid as string;
  if (meta.uid !== undefined && meta.uid !== uid)
    return {
      ok: false,
      status: conflict(
        name,
        `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${uid}`,
      ),
    };
  if (meta.resourceVersion !== undefined && meta.resourceVersion !== '') {
    if (meta.resourceVersion !== old.metadata.resourceVersion)
      return { ok: false, status: conflict(name, MODIFIED) };
  }
  pod.metadata = { ...meta, name, namespace };
  // defaulting needs a spec with containers: without them the update is invalid as it stands (422)
  if (!Array.isArray(pod.spec?.containers))
    return { ok: false, status: invalidUpdate(name, validatePod(pod, namespace)) };
  const defaulted = setPodDefaults(pod);
  const errs = validatePod(defaulted, namespace);
  if (errs.length === 0) errs.push(...podUpdateErrors(old.spec, defaulted.spec));
  if (errs.length > 0) return { ok: false, status: invalidUpdate(name, errs) };
  const { resourceVersion: _rv, ...rest } = defaulted.metadata;
  const next: Pod = {
    ...defaulted,
    metadata: {
      ...rest,
      uid,
      creationTimestamp: old.metadata.creationTimestamp,
      ...(old.metadata.deletionTimestamp ? { deletionTimestamp: old.metadata.deletionTimestamp } : {}),
      ...(old.metadata.deletionGracePeriodSeconds !== undefined
        ? { deletionGracePeriodSeconds: old.metadata.deletionGracePeriodSeconds }
        : {}),
    },
  };
  delete next.status;
  if (next.metadata.deletionTimestamp === undefined) delete next.metadata.deletionTimestamp;
  return { ok: true, pod: next };
}
