/** The v1 Namespace as this server serves it (namespace-store.ts keeps them; table/nodes.ts prints them). */
export interface Namespace {
  apiVersion: 'v1';
  kind: 'Namespace';
  metadata: {
    name: string;
    uid?: string;
    resourceVersion?: string;
    creationTimestamp: string;
    /** Set once it is deleted: it is Terminating until its pods are gone. */
    deletionTimestamp?: string;
    labels: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec: { finalizers: string[] };
  status: { phase: NamespacePhase };
}

type NamespacePhase = 'Active' | 'Terminating';

/** The label the apiserver sets on every namespace to its name. */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/** The namespaces every cluster has, made when the server starts. */
export const SYSTEM_NAMESPACES = ['default', 'kube-node-lease', 'kube-public', 'kube-system'] as const;

/** The ones that may not be deleted (the NamespaceLifecycle admission plugin's immortal namespaces). */
export const IMMORTAL_NAMESPACES: ReadonlySet<string> = new Set(['default', 'kube-public', 'kube-system']);

/** The finalizer the namespace controller removes once the namespace's content is gone. */
export const NAMESPACE_FINALIZER = 'kubernetes';
