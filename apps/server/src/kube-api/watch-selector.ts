/**
 * The label and field selectors of a pod watch, as one predicate. A small matcher of the apiserver's
 * syntax: labels `k=v`, `k==v`, `k!=v`, `k in (a,b)`, `k notin (a,b)`, `k`, `!k`; fields metadata.name,
 * metadata.namespace, status.phase, spec.nodeName, spec.restartPolicy with `=`, `==`, `!=`. Kept to this
 * one function so the list routes' own selector parser can take its place.
 */
import type { Pod, Status } from '@syncscope/core/api';
import { badRequest } from '../status.ts';

export type PodPredicate = (pod: Pod) => boolean;

const FIELDS: Record<string, (p: Pod) => string> = {
  'metadata.name': (p) => p.metadata.name ?? '',
  'metadata.namespace': (p) => p.metadata.namespace ?? '',
  'status.phase': (p) => p.status?.phase ?? '',
  'spec.nodeName': (p) => p.spec.nodeName ?? '',
  'spec.restartPolicy': (p) => p.spec.restartPolicy ?? '',
};

/** Splits on commas outside parentheses. */
function terms(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim() !== '') out.push(cur.trim());
  return out;
}

function labelTerm(t: string): PodPredicate | undefined {
  const labels = (p: Pod) => p.metadata.labels ?? {};
  let m = /^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(t);
  if (m) {
    const [, key, op, list] = m as unknown as [string, string, string, string];
    const values = new Set(list.split(',').map((v) => v.trim()));
    return op === 'in'
      ? (p) => labels(p)[key] !== undefined && values.has(labels(p)[key] as string)
      : (p) => labels(p)[key] === undefined || !values.has(labels(p)[key] as string);
  }
  m = /^([\w./-]+)\s*(==|=|!=)\s*([\w.-]*)$/.exec(t);
  if (m) {
    const [, key, op, value] = m as unknown as [string, string, string, string];
    return op === '!=' ? (p) => labels(p)[key] !== value : (p) => labels(p)[key] === value;
  }
  m = /^(!?)([\w./-]+)$/.exec(t);
  if (m) {
    const [, not, key] = m as unknown as [string, string, string];
    return not ? (p) => labels(p)[key] === undefined : (p) => labels(p)[key] !== undefined;
  }
  return undefined;
}

/** The predicate, or a 400 Status naming the selector that cannot be read. */
export function podSelector(labelSelector?: string, fieldSelector?: string): PodPredicate | Status {
  const preds: PodPredicate[] = [];
  for (const t of terms(labelSelector ?? '')) {
    const p = labelTerm(t);
    if (!p) return badRequest(`unable to parse requirement: found '${t}', expected: valid label selector`);
    preds.push(p);
  }
  for (const t of terms(fieldSelector ?? '')) {
    const m = /^([\w.]+)\s*(==|=|!=)\s*(.*)$/.exec(t);
    if (!m) return badRequest(`invalid selector: '${fieldSelector}'; can't understand '${t}'`);
    const [, field, op, value] = m as unknown as [string, string, string, string];
    const get = FIELDS[field];
    if (!get) return badRequest(`field label not supported: ${field}`);
    preds.push(op === '!=' ? (p) => get(p) !== value : (p) => get(p) === value);
  }
  return (pod) => preds.every((p) => p(pod));
}
