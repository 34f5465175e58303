/**
 * The pure part of a pod PATCH: the body parsed, bounded, applied to the pod as the API serves it, the result
 * bounded and checked as an update (pod-update.ts), and whether it changes the pod at all. Nothing here reads
 * the engine or the clock, so it runs on the event loop (pod-writes.ts, small patches) or on a patch thread
 * (patch-thread.ts, large ones) with the same answer, byte for byte.
 *
 * A patch nested deeper than a pod may be is 400, a JSON patch past its limits (patch.ts JsonPatchLimits) 413
 * or 422, and a patched pod deeper than a pod may be is 422 (field `patch`) or larger than a request body may
 * be 413, before anything else reads it.
 */
import type { Pod, Status } from '@syncscope/core/api';
import { BODY_LIMIT_BYTES } from '../context.ts';
import { MAX_OBJECT_DEPTH } from '../limits.ts';
import { badRequest, status } from '../status.ts';
import { applyPatch, type Json, jsonBounds, jsonEqual, PatchError, type PatchType } from './patch.ts';
import { checkPodUpdate, invalidUpdate } from './pod-update.ts';

/** One PATCH as the pure part needs it: `old` is the pod as the API serves it (with its resourceVersion). */
export interface PatchRequest {
  old: Pod;
  type: PatchType;
  body: string;
  namespace: string;
  name: string;
}

/** The pod to store and whether it differs from the old one (an update that changes nothing is not written). */
export type Patched = { ok: true; pod: Pod; changed: boolean } | { ok: false; status: Status };

/** 413, as errors.NewRequestEntityTooLargeError words it. */
const tooLarge = (why: string) => status(413, 'RequestEntityTooLarge', `Request entity too large: ${why}`);

/** Whether `next` (a checked update) differs from `old` in anything but its status and resourceVersion. */
export function changedFrom(old: Pod, next: Pod): boolean {
  const { status: _s, ...oldConfig } = old;
  const { resourceVersion: _rv, ...oldMeta } = oldConfig.metadata;
  return !jsonEqual({ ...oldConfig, metadata: oldMeta }, next);
}

export function patchedPod({ old, type, body, namespace, name }: PatchRequest): Patched {
  const fail = (s: Status): Patched => ({ ok: false, status: s });
  let patch: Json;
  try {
    patch = JSON.parse(body) as Json;
  } catch (e) {
    return fail(badRequest(`error decoding patch: ${(e as Error).message}`));
  }
  // the body is within BODY_LIMIT_BYTES already; its depth bounds the recursion of the merges
  if (jsonBounds(patch, MAX_OBJECT_DEPTH + 2, Number.POSITIVE_INFINITY) === 'deep')
    return fail(
      badRequest(`error decoding patch: the patch is nested deeper than ${MAX_OBJECT_DEPTH + 2} levels`),
    );
  let patched: Json;
  try {
    patched = applyPatch(type, structuredClone(old) as unknown as Json, patch);
  } catch (e) {
    if (!(e instanceof PatchError)) throw e;
    return fail(e.code === 413 ? tooLarge(e.message) : status(422, 'Invalid', e.message));
  }
  const bounds = jsonBounds(patched, MAX_OBJECT_DEPTH, BODY_LIMIT_BYTES);
  if (bounds === 'large')
    return fail(tooLarge(`the patched pod is larger than the limit of ${BODY_LIMIT_BYTES} bytes`));
  if (bounds === 'deep')
    return fail(
      invalidUpdate(name, [
        {
          field: 'patch',
          reason: 'FieldValueInvalid',
          message: `Invalid value: "<patched pod>": nested deeper than ${MAX_OBJECT_DEPTH} levels`,
        },
      ]),
    );
  const checked = checkPodUpdate(old, patched, namespace, name);
  if (!checked.ok) return checked;
  return { ok: true, pod: checked.pod, changed: changedFrom(old, checked.pod) };
}
