/**
 * The bodies of the pod write routes beyond create (routes/pods.ts registers them):
 *
 *   PUT    …/pods/:name   replace (JSON or YAML Pod) → 200 Pod
 *   PATCH  …/pods/:name   json-patch, merge-patch or strategic-merge-patch (JSON) → 200 Pod; other → 415
 *   DELETE …/pods/:name   DeleteOptions (body and query), preconditions → 200 Pod
 *
 * An update is checked by checkPodUpdate (pod-update.ts), stored, then handed to the engine as an UPDATE
 * (an image change restarts that container: the kubelet sees its hash change). An update that changes
 * nothing is not written, and the pod keeps its resourceVersion, as with the apiserver. With `dryRun` every
 * check is made and the answer is the pod as it would be, but nothing is stored or handed on (it keeps the
 * resourceVersion it has). Each returns what to send: a Pod (with its resourceVersion) or a Status. Called
 * on the event loop.
 *
 * A PATCH is bounded by its request (the event loop is everyone's; patch-pod.ts has the bounds). One whose
 * body is past PATCH_THREAD_MIN_CHARS is worked out on the patch thread (patch-thread.ts) and is the one
 * write that awaits: the pod may change meanwhile, so the result is stored only if the pod still has the
 * resourceVersion it was patched at, else the patch is applied again to the pod as it is, as the apiserver's
 * GuaranteedUpdate does (409 after PATCH_ATTEMPTS).
 */

import { type AdmittedPod, gracefulDeletion } from '@syncscope/core';
import type { Pod, Status } from '@syncscope/core/api';
import type { PassiveClock } from '@syncscope/core/clock';
import { MANIFEST_MEDIA_TYPES, manifestMediaType, parseManifest } from '../admission.ts';
import type { Engine } from '../engine.ts';
import { notFound, status, unsupportedMediaType } from '../status.ts';
import { preconditionFailure, readDeleteOptions } from './delete-options.ts';
import { PATCH_MEDIA_TYPES, type PatchType } from './patch.ts';
import { changedFrom, type Patched, type PatchRequest, patchedPod } from './patch-pod.ts';
import { type PatchAnswer, PatchPool, PatchThreadFailed } from './patch-thread.ts';
import { boundToNode } from './pod-reads.ts';
import { checkPodUpdate, conflict, MODIFIED } from './pod-update.ts';
import { type PodVersions, withVersion } from './watch.ts';
import { type WriteOptions, type WriteQueryValue, withPodType } from './write-options.ts';

/**
 * A patch body longer than this (UTF-16 units: its length costs nothing to read) is worked out on the patch
 * thread; a shorter one inline (a hop costs ~1 ms, and copying the pod there and back more).
 */
export const PATCH_THREAD_MIN_CHARS = 64 * 1024;

/** Times a patch made on the thread is made again for a pod that changed meanwhile, before it is 409. */
const PATCH_ATTEMPTS = 3;

const patchThreads = new PatchPool();

/** A write that is made (not a dry run). */
const WRITE: WriteOptions = { dryRun: false };

export interface WriteContext {
  engine: Engine;
  versions: Pick<PodVersions, 'version' | 'listVersion'>;
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

/**
 * Stores and hands on `next` if it `changed` the pod; answers the pod as it then is. A dry run answers it
 * as it would be: `next` with the status and resourceVersion the pod has.
 */
function update(ctx: WriteContext, old: AdmittedPod, next: Pod, changed: boolean, opts: WriteOptions): Pod {
  if (opts.dryRun) {
    const bound = boundToNode(next, ctx.engine.nodeInfo().nodeName);
    return {
      ...bound,
      metadata: { ...bound.metadata, resourceVersion: old.metadata.resourceVersion },
      ...(old.status ? { status: old.status } : {}),
    };
  }
  if (changed) ctx.engine.updatePod(next);
  return stamped(ctx, old.metadata.uid) ?? next;
}

export function replacePod(
  ctx: WriteContext,
  t: Target,
  body: string,
  contentType: string | undefined,
  opts: WriteOptions = WRITE,
): Pod | Status {
  if (manifestMediaType(contentType) === undefined)
    return unsupportedMediaType(contentType ?? '', MANIFEST_MEDIA_TYPES);
  const old = current(ctx, t);
  if (!old) return notFound(t.name);
  const parsed = parseManifest(body, contentType);
  if (!parsed.ok) return parsed.status;
  const value = withPodType(parsed.value);
  const checked = checkPodUpdate(old, opts.body ? opts.body(value) : value, t.ns, t.name);
  if (!checked.ok) return checked.status;
  return update(ctx, old, checked.pod, changedFrom(old, checked.pod), opts);
}

export async function patchPod(
  ctx: WriteContext,
  t: Target,
  body: string,
  contentType: string | undefined,
  opts: WriteOptions = WRITE,
): Promise<Pod | Status> {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() as PatchType;
  if (!(PATCH_MEDIA_TYPES as readonly string[]).includes(type))
    return unsupportedMediaType(contentType ?? '', PATCH_MEDIA_TYPES);
  for (let attempt = 0; attempt < PATCH_ATTEMPTS; attempt++) {
    const old = current(ctx, t);
    if (!old) return notFound(t.name);
    const req: PatchRequest = { old, type, body, namespace: t.ns, name: t.name };
    if (body.length <= PATCH_THREAD_MIN_CHARS) return written(ctx, old, patchedPod(req), opts);
    const patched = await onThread(req);
    // stored only onto the pod it was made from (the same uid and resourceVersion)
    const now = current(ctx, t);
    if (
      now?.metadata.uid === old.metadata.uid &&
      now.metadata.resourceVersion === old.metadata.resourceVersion
    )
      return written(ctx, old, patched, opts);
  }
  return conflict(t.name, MODIFIED);
}

function written(ctx: WriteContext, old: AdmittedPod, patched: Patched, opts: WriteOptions): Pod | Status {
  return patched.ok ? update(ctx, old, patched.pod, patched.changed, opts) : patched.status;
}

/**
 * patchedPod on the patch thread. What it throws is thrown here (the error handler answers 500, as inline); a
 * thread that dies under it is 413 when it ran out of memory, else 500.
 */
async function onThread(req: PatchRequest): Promise<Patched> {
  let answer: PatchAnswer;
  try {
    answer = await patchThreads.run(req);
  } catch (e) {
    if (!(e instanceof PatchThreadFailed)) throw e;
    const why = e.outOfMemory
      ? status(
          413,
          'RequestEntityTooLarge',
          'Request entity too large: the patch needs more memory than a request may have',
        )
      : status(500, 'InternalError', `Internal error occurred: ${e.message}`);
    return { ok: false, status: why };
  }
  if ('error' in answer) throw new Error(answer.error);
  return answer.patched;
}

export function deletePod(
  ctx: WriteContext,
  t: Target,
  body: string,
  contentType: string | undefined,
  query: WriteQueryValue,
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
