/**
 * `<data-dir>/kubeconfig`: what kubectl (or any client-go / client-node program) needs to talk to this
 * server: one cluster (its URL), one user (the bearer token when the server has one), one context named
 * `syncscope` made current. Written by main.ts once the server listens, mode 0600 (it may hold the token),
 * replacing what an earlier run wrote; the start line tells how to use it.
 *
 * Without a token the URL is the plain http one, and the cluster says `insecure-skip-tls-verify: true`:
 * there is no TLS to verify, and @kubernetes/client-node refuses an http server unless the kubeconfig says
 * so (client-go, Python and Ruby ignore it for http). With a token it is the server's https listener
 * (kube-tls.ts) and the file trusts that listener's own certificate as the CA: client-go uses a
 * kubeconfig's token only over https.
 */
import { chmodSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';

const KUBECONFIG_FILE = 'kubeconfig';
const CONTEXT_NAME = 'syncscope';

export interface KubeconfigOptions {
  /** e.g. http://127.0.0.1:8080 */
  server: string;
  token?: string;
  /** PEM of the certificate an https server presents (trusted as the cluster's CA). */
  caCert?: string;
  namespace?: string;
}

/** The kubeconfig document (a v1 Config). */
function kubeconfig(opts: KubeconfigOptions): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: CONTEXT_NAME,
        cluster: {
          server: opts.server,
          ...(opts.caCert
            ? { 'certificate-authority-data': Buffer.from(opts.caCert).toString('base64') }
            : {}),
          ...(opts.server.startsWith('http:') ? { 'insecure-skip-tls-verify': true } : {}),
        },
      },
    ],
    users: [{ name: CONTEXT_NAME, user: opts.token ? { token: opts.token } : {} }],
    contexts: [
      {
        name: CONTEXT_NAME,
        context: { cluster: CONTEXT_NAME, user: CONTEXT_NAME, namespace: opts.namespace ?? 'default' },
      },
    ],
    'current-context': CONTEXT_NAME,
    preferences: {},
  });
}

/**
 * The URL a client on this machine uses: a wildcard listen address becomes loopback, an IPv6 one gets
 * brackets.
 */
export function clientURL(host: string, port: number, scheme = 'http'): string {
  const h = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `${scheme}://${h.includes(':') && !h.startsWith('[') ? `[${h}]` : h}:${port}`;
}

/** Writes `<dataDir>/kubeconfig` (0600, through a temp file) and returns its path. Throws on I/O errors. */
export function writeKubeconfig(dataDir: string, opts: KubeconfigOptions): string {
  const path = join(dataDir, KUBECONFIG_FILE);
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, kubeconfig(opts), { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
  return path;
}
