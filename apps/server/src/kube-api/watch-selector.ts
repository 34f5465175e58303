/**
 * The label and field selectors of a pod watch, as one predicate: the same parsers, fields and messages as
 * the pod lists (label-selector.ts, field-selector.ts, pod-reads.ts POD_FIELDS).
 */
import type { Pod, Status } from '@syncscope/core/api';
import { badRequest } from '../status.ts';
import { fieldsMatch, parseFieldSelector } from './field-selector.ts';
import { labelsMatch, parseLabelSelector } from './label-selector.ts';
import { POD_FIELDS, podField } from './pod-reads.ts';

export type PodPredicate = (pod: Pod) => boolean;

/** The predicate, or the 400 Status the API server answers to a selector it cannot read. */
export function podSelector(labelSelector?: string, fieldSelector?: string): PodPredicate | Status {
  const labels = parseLabelSelector(labelSelector ?? '');
  if (!labels.ok) return badRequest(labels.message);
  const fields = parseFieldSelector(fieldSelector ?? '', POD_FIELDS);
  if (!fields.ok) return badRequest(fields.message);
  return (pod) =>
    labelsMatch(labels.value, pod.metadata.labels) && fieldsMatch(fields.value, (f) => podField(pod, f));
}
