/**
 * The bodies of the pod write routes beyond create (routes/pods.ts registers them):
 *
 *   PUT    …/pods/:name   replace (JSON or YAML Pod) → 200 Pod
 *   PATCH  …/pods/:name   json-patch, merge-patch or strategic-merge-patch (JSON) → 200 Pod; other → 415
 *   DELETE …/pods/:name   DeleteOptions (body and query), preconditions → 200 Pod
 *
 * An update is checked by checkPodUpdate (pod-update.ts), stored, then handed to the engine as an UPDATE
 * (an image change restarts that container: the kubelet sees its hash change). An update that changes
 * nothing is not written, and the pod keeps its resourceVersion, as with the apiserver. Each returns what
 * to send: a Pod (with its resourceVersion) or a Status. Called on the event loop; nothing awaits.
 *
 * A PATCH is bounded by its request (the event loop is everyone's): a patch nested deeper than a pod may be
 * is 400, a JSON patch past its limits (patch.ts JsonPatchLimits) 413 or 422, and a patched pod deeper than
 * a pod may be is 422 (field `patch`) or larger than a request body may be 413, before anything else reads it.
 */

import { type AdmittedPod, gracefulDeletion } from '@syncscope/core';
import type { Pod, Status } from '@syncscope/core/api';
import type { PassiveClock } from '@syncscope/core/clock';
import { MANIFEST_MEDIA_TYPES, manifestMediaType, parseManifest } from '../admission.ts';
import { BODY_LIMIT_BYTES } from '../context.ts';
import type { Engine } from '../engine.ts';
import { MAX_OBJECT_DEPTH } from '../limits.ts';
import { badRequest, notFound, status, unsupportedMediaType } from '../status.ts';
import { preconditionFailure, readDeleteOptions } from './delete-options.ts';
import {
  applyPatch,
  type Json,
  jsonBounds,
  jsonEqual,
  PATCH_MEDIA_TYPES,
  PatchError,
  type PatchType,
} from './patch.ts';
import { boundToNode } from './pod-reads.ts';
import { checkPodUpdate, invalidUpdate } from './pod-update.ts';
import { type PodVersions, withVersion } from './watch.ts';

export interface WriteContext {
  engine: Engine;
  versions: PodVersions;
  clock: PassiveClock;
}

export interface Target {
  ns: string;
  name: string;
}

/** The pod as the API serves it (pod-reads.ts): bound to this node, with its resourceVersion. */
function served(ctx: WriteContext, pod: AdmittedPod | undefined): AdmittedPod | undefined {
  if (!pod) return undefined;
  const bound = boundToNode(pod, ctx.engine.nodeInfo().nodeName);
  const rv = ctx.versions.version(pod.metadata.uid);
  return rv !== undefined ? withVersion(bound, rv) : bound;
}

function current(ctx: WriteContext, t: Target): AdmittedPod | undefined {
  return served(ctx, ctx.engine.getPod(t.ns, t.name));
}

function stamped(ctx: WriteContext, uid: string): Pod | undefined {
  return served(ctx, ctx.engine.getPodByUID(uid));
}

/** Stores and hands on `next` unless it is the pod as it is; answers the pod as it then is. */
function update(ctx: WriteContext, old: AdmittedPod, next: Pod): Pod {
  const uid = old.metadata.uid;
  const { status: _s, ...oldConfig } = old;
  const { resourceVersion: _rv, ...oldMeta } = oldConfig.metadata;
  if (!jsonEqual({ ...oldConfig, metadata: oldMeta }, next)) ctx.engine.updatePod(next);
  return stamped(ctx, uid) ?? next;
}

export function replacePod(
  ctx: WriteContext,
  t: Target,
  body: string,
  contentType: string | undefined,
): Pod | Status {
  if (manifestMediaType(contentType) === undefined)
    return unsupportedMediaType(contentType ?? '', MANIFEST_MEDIA_TYPES);
  const old = current(ctx, t);
  if (!old) return notFound(t.name);
  const parsed = parseManifest(body, contentType);
  if (!parsed.ok) return parsed.status;
  const checked = checkPodUpdate(old, parsed.value, t.ns, t.name);
  if (!checked.ok) return checked.status;
  return update(ctx, old, checked.pod);
}

export function patchPod(
  ctx: WriteContext,
  t: Target,
  body: string,
  contentType: string | undefined,
): Pod | Status {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() as PatchType;
  if (!(PATCH_MEDIA_TYPES as readonly string[]).includes(type))
    return unsupportedMediaType(contentType ?? '', PATCH_MEDIA_TYPES);
  const old = current(ctx, t);
  if (!old) return notFound(t.name);
  let patch: Json;
  try {
    patch = JSON.parse(body) as Json;
  } catch (e) {
    return badRequest(`error decoding patch: ${(e as Error).message}`);
  }
  // the body is within BODY_LIMIT_BYTES already; its depth bounds the recursion of the merges
  if (jsonBounds(patch, MAX_OBJECT_DEPTH + 2, Number.POSITIVE_INFINITY) === 'deep')
    return badRequest(`error decoding patch: the patch is nested deeper than ${MAX_OBJECT_DEPTH + 2} levels`);
  let patched: Json;
  try {
    patched = applyPatch(type, structuredClone(old) as unknown as Json, patch);
  } catch (e) {
    if (!(e instanceof PatchError)) throw e;
    return e.code === 413 ? tooLarge(e.message) : status(422, 'Invalid', e.message);
  }
  const bounds = jsonBounds(patched, MAX_OBJECT_DEPTH, BODY_LIMIT_BYTES);
  if (bounds === 'large')
    return tooLarge(`the patched pod is larger than the limit of ${BODY_LIMIT_BYTES} bytes`);
  if (bounds === 'deep')
    return invalidUpdate(t.name, [
      {
        field: 'patch',
        reason: 'FieldValueInvalid',
        message: `Invalid value: "<patched pod>": nested deeper than ${MAX_OBJECT_DEPTH} levels`,
      },
    ]);
  const checked = checkPodUpdate(old, patched, t.ns, t.name);
  if (!checked.ok) return checked.status;
  return update(ctx, old, checked.pod);
}

/** 413, as errors.NewRequestEntityTooLargeError words it. */
const tooLarge = (why: string) => status(413, 'RequestEntityTooLarge', `Request entity too large: ${why}`);

export function deletePod(
  ctx: WriteContext,
  t: Target,
  body: string,
  contentType: string | undefined,
  query: { gracePeriodSeconds?: string; propagationPolicy?: string; dryRun?: string },
): Pod | Status {
  const opts = readDeleteOptions(body, contentType, query);
  if ('kind' in opts) return opts;
  const pod = current(ctx, t);
  if (!pod?.metadata.uid) return notFound(t.name);
  const failed = preconditionFailure(pod, opts);
  if (failed) return failed;
  const uid = pod.metadata.uid;
  const asked = ctx.clock.now();
  if (opts.dryRun) return gracefulDeletion(pod, opts.gracePeriodSeconds, asked, pod.status?.phase) ?? pod;
  ctx.engine.deletePod(uid, opts.gracePeriodSeconds); // stored, then started; throws (nothing started) if not stored
  const now = stamped(ctx, uid);
  if (now) return now;
  // gone already (grace 0, or a finished pod): the object as it was deleted
  const gone = gracefulDeletion(pod, 0, asked) ?? pod;
  return withVersion(gone, ctx.versions.listVersion());
}
