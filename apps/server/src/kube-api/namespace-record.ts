/**
 * A namespace as the namespace store keeps it (NamespaceRecord), where it is kept (NamespaceKeeper: the data
 * dir's NamespaceFile), and the Namespace object the API answers for it.
 */
import { NAMESPACE_FINALIZER, NAMESPACE_NAME_LABEL, type Namespace } from './namespace-object.ts';

/** A namespace as it is kept: what its Namespace object is made from. */
export interface NamespaceRecord {
  name: string;
  uid: string;
  /** RFC 3339 creationTimestamp. */
  created: string;
  resourceVersion: string;
  labels: Record<string, string>;
  annotations?: Record<string, string>;
  /** RFC 3339 deletionTimestamp: the namespace is Terminating. */
  deletion?: string;
}

/** Where the namespaces are kept (the data dir's NamespaceFile). */
export interface NamespaceKeeper {
  /** The namespaces kept; undefined when none are (a first start, or a damaged file). */
  load(): NamespaceRecord[] | undefined;
  /** Keeps `records` durably; throws a StatusError (507 or 503) when the disk refuses, keeping the old ones. */
  save(records: readonly NamespaceRecord[]): void;
  warn(msg: string): void;
}

/** The Namespace object of a kept record: Terminating while it has a deletionTimestamp, else Active. */
export function namespaceObject(e: NamespaceRecord): Namespace {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: e.name,
      ...(e.uid ? { uid: e.uid } : {}),
      resourceVersion: e.resourceVersion,
      creationTimestamp: e.created,
      ...(e.deletion ? { deletionTimestamp: e.deletion } : {}),
      labels: { ...e.labels, [NAMESPACE_NAME_LABEL]: e.name },
      ...(e.annotations ? { annotations: { ...e.annotations } } : {}),
    },
    spec: { finalizers: [NAMESPACE_FINALIZER] },
    status: { phase: e.deletion ? 'Terminating' : 'Active' },
  };
}
