/**
 * A pod DELETE's options, as the apiserver reads them: the DeleteOptions body (JSON or YAML; empty is none)
 * and the query's gracePeriodSeconds, propagationPolicy and dryRun (the query checked by the route's TypeBox
 * schema and write-options.ts; the body wins where both are given), and the
 * preconditions check against the pod as it is. A pod has no dependents here: propagationPolicy is
 * checked and accepted, nothing more.
 */
import { isStatus, type Pod, type Status } from '@syncscope/core/api';
import { MAX_GRACE_PERIOD_SECONDS } from '@syncscope/core/api/validation';
import { parseManifest } from '../admission.ts';
import { badParam, badRequest } from '../status.ts';
import { conflict } from './pod-update.ts';
import { readWriteOptions, type WriteQueryValue } from './write-options.ts';

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun: boolean;
}

const POLICIES = ['Foreground', 'Background', 'Orphan'];
const KNOWN = new Set([
  'kind',
  'apiVersion',
  'gracePeriodSeconds',
  'preconditions',
  'propagationPolicy',
  'orphanDependents',
  'dryRun',
  'ignoreStoreReadErrorWithClusterBreakingPotential',
]);

/** `query` as the route's schema read it (write-options.ts WriteQuery). */
export function readDeleteOptions(
  body: string,
  contentType: string | undefined,
  query: Pick<WriteQueryValue, 'gracePeriodSeconds' | 'propagationPolicy' | 'dryRun'>,
): DeleteOptions | Status {
  const write = readWriteOptions('DeleteOptions', query);
  if (isStatus(write)) return write;
  const opts: DeleteOptions = { gracePeriodSeconds: query.gracePeriodSeconds, dryRun: write.dryRun };
  let policy = query.propagationPolicy;
  if (body.trim() !== '') {
    const parsed = parseManifest(body, contentType);
    if (!parsed.ok) return parsed.status;
    const v = parsed.value as Record<string, unknown>;
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      return badRequest('the request body is not a DeleteOptions object');
    for (const k of Object.keys(v))
      if (!KNOWN.has(k)) return badRequest(`strict decoding error: unknown field "${k}"`);
    if (v.gracePeriodSeconds !== undefined && v.gracePeriodSeconds !== null) {
      const g = v.gracePeriodSeconds;
      if (typeof g !== 'number' || !Number.isInteger(g))
        return badParam('gracePeriodSeconds', String(g), 'must be an integer');
      // a negative grace is taken as 1 (the pod strategy's rule)
      opts.gracePeriodSeconds = g < 0 ? 1 : Math.min(g, MAX_GRACE_PERIOD_SECONDS);
    }
    const pre = v.preconditions as { uid?: unknown; resourceVersion?: unknown } | undefined | null;
    if (pre) {
      opts.preconditions = {
        ...(typeof pre.uid === 'string' ? { uid: pre.uid } : {}),
        ...(typeof pre.resourceVersion === 'string' ? { resourceVersion: pre.resourceVersion } : {}),
      };
    }
    if (typeof v.propagationPolicy === 'string') policy = v.propagationPolicy;
    if (Array.isArray(v.dryRun)) {
      const bad = v.dryRun.find((d) => d !== 'All');
      if (bad !== undefined) {
        const checked = readWriteOptions('DeleteOptions', { dryRun: String(bad) });
        if (isStatus(checked)) return checked;
      }
      if (v.dryRun.length > 0) opts.dryRun = true;
    }
  }
  if (policy !== undefined && !POLICIES.includes(policy))
    return badRequest(
      `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan"`,
    );
  return opts;
}

/** The 409 Conflict a precondition that does not hold answers, or undefined. `pod` carries its resourceVersion. */
export function preconditionFailure(pod: Pod, opts: DeleteOptions): Status | undefined {
  const name = pod.metadata.name;
  const pre = opts.preconditions;
  if (pre?.uid !== undefined && pre.uid !== pod.metadata.uid)
    return conflict(
      name,
      `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${pod.metadata.uid ?? ''}`,
    );
  if (pre?.resourceVersion !== undefined && pre.resourceVersion !== pod.metadata.resourceVersion)
    return conflict(
      name,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${pod.metadata.resourceVersion ?? ''}`,
    );
  return undefined;
}
