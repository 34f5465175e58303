/** The v1 Namespace as this server lists it (namespaces.ts makes them; table/nodes.ts prints them). */
export interface Namespace {
  apiVersion: 'v1';
  kind: 'Namespace';
  metadata: {
    name: string;
    uid?: string;
    resourceVersion?: string;
    creationTimestamp: string;
    labels: Record<string, string>;
  };
  spec: { finalizers: string[] };
  status: { phase: 'Active' };
}
