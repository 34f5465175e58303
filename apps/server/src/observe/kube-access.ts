/**
 * Where an observer finds the API server and how it proves who it is, as client-go's clientcmd reads it:
 *
 *   loadKubeconfig(file)   a kubeconfig's current context: the cluster's `server`, its CA
 *                          (`certificate-authority[-data]`, or `insecure-skip-tls-verify`), `tls-server-name`;
 *                          the user's `token` / `tokenFile`, client certificate and key (`client-certificate[-data]`,
 *                          `client-key[-data]`), or `username` / `password`. Relative paths are read from the
 *                          kubeconfig's folder. Exec and auth-provider plugins are refused by name.
 *   inClusterAccess(env)   rest.InClusterConfig: KUBERNETES_SERVICE_HOST / _PORT, the service account's token and
 *                          CA under /var/run/secrets/kubernetes.io/serviceaccount; undefined outside a pod.
 *
 * A token file is read again at every request (a projected service-account token is rotated in place). Throws
 * an Error naming the file and field for anything it cannot use.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { parse as parseYaml } from 'yaml';

export interface KubeAccess {
  /** The API server's base URL, e.g. https://10.96.0.1:443 */
  server: URL;
  /** PEM of the CAs the server's certificate must chain to; undefined: the system's. */
  ca?: string;
  insecureSkipTLSVerify?: boolean;
  tlsServerName?: string;
  /** The client certificate and key, PEM. */
  cert?: string;
  key?: string;
  /** The Authorization header to send, read at each request; undefined: none. */
  authorization(): string | undefined;
}

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

type Named<K extends string> = { name?: unknown } & { [k in K]?: Record<string, unknown> };

function pick<K extends string>(list: unknown, name: unknown, key: K, file: string): Record<string, unknown> {
  const found = Array.isArray(list)
    ? (list as Named<K>[]).find((e) => typeof e === 'object' && e !== null && e.name === name)
    : undefined;
  if (!found) throw new Error(`${file}: no ${key} named ${JSON.stringify(name)}`);
  return found[key] ?? {};
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The current context of a kubeconfig file (KUBECONFIG-style merging of several files is not done). */
export function loadKubeconfig(file: string): KubeAccess {
  const raw = parseYaml(readFileSync(file, 'utf8')) as Record<string, unknown> | null;
  if (typeof raw !== 'object' || raw === null) throw new Error(`${file}: not a kubeconfig`);
  const current = raw['current-context'];
  if (text(current) === undefined) throw new Error(`${file}: no current-context`);
  const ctx = pick(raw.contexts, current, 'context', file);
  const cluster = pick(raw.clusters, ctx.cluster, 'cluster', file);
  const user = ctx.user === undefined ? {} : pick(raw.users, ctx.user, 'user', file);
  for (const plugin of ['exec', 'auth-provider'])
    if (user[plugin] !== undefined)
      throw new Error(`${file}: user ${String(ctx.user)}: ${plugin} is not supported`);
  const base = dirname(file);
  const read = (path: string) => readFileSync(isAbsolute(path) ? path : join(base, path), 'utf8');
  const pem = (data: string, path: string): string | undefined => {
    const d = text(cluster[data]) ?? text(user[data]);
    if (d !== undefined) return Buffer.from(d, 'base64').toString('utf8');
    const p = text(cluster[path]) ?? text(user[path]);
    return p === undefined ? undefined : read(p);
  };
  const server = text(cluster.server);
  if (server === undefined) throw new Error(`${file}: cluster ${String(ctx.cluster)} has no server`);
  const token = text(user.token);
  const tokenFile = text(user.tokenFile);
  const basic =
    text(user.username) !== undefined
      ? `Basic ${Buffer.from(`${user.username}:${text(user.password) ?? ''}`).toString('base64')}`
      : undefined;
  const ca = pem('certificate-authority-data', 'certificate-authority');
  const cert = pem('client-certificate-data', 'client-certificate');
  const key = pem('client-key-data', 'client-key');
  const tlsServerName = text(cluster['tls-server-name']);
  return {
    server: new URL(server),
    ...(ca !== undefined ? { ca } : {}),
    ...(cluster['insecure-skip-tls-verify'] === true ? { insecureSkipTLSVerify: true } : {}),
    ...(tlsServerName !== undefined ? { tlsServerName } : {}),
    ...(cert !== undefined ? { cert } : {}),
    ...(key !== undefined ? { key } : {}),
    authorization: () => {
      if (token !== undefined) return `Bearer ${token}`;
      if (tokenFile !== undefined) return `Bearer ${read(tokenFile).trim()}`;
      return basic;
    },
  };
}

/** The service account's access from inside a pod; undefined when not in one (no env or no token). */
export function inClusterAccess(env: NodeJS.ProcessEnv, dir = SERVICE_ACCOUNT_DIR): KubeAccess | undefined {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  const tokenFile = join(dir, 'token');
  if (!host || !port || !existsSync(tokenFile)) return undefined;
  const caFile = join(dir, 'ca.crt');
  return {
    server: new URL(`https://${host.includes(':') ? `[${host}]` : host}:${port}`),
    ...(existsSync(caFile) ? { ca: readFileSync(caFile, 'utf8') } : {}),
    authorization: () => `Bearer ${readFileSync(tokenFile, 'utf8').trim()}`,
  };
}
