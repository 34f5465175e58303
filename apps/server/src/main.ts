/**
 * The command line: `pnpm start [--port 9000] [--runtime-endpoint unix:///run/containerd/containerd.sock]`.
 * Every flag also comes from the environment; the flag wins. Listens on loopback unless told otherwise, and
 * then only with SYNCSCOPE_TOKEN set (every route but /healthz and the web app's files then needs it).
 *
 * State lives in --data-dir: the pods (brought back on restart, even after kill -9), the trace journal
 * (history and seq continue across restarts). One server per data dir: a second one exits 1 naming the
 * first (store/lock.ts). SIGTERM/SIGINT stop it cleanly within 2 s (lifecycle.ts).
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultKubeletConfiguration, type KubeletConfiguration } from '@syncscope/core';
import { parse as parseYaml } from 'yaml';
import { MIN_TOKEN_LENGTH } from './access.ts';
import { buildApp, handleShutdownSignals } from './app.ts';
import { checkDataDir, startFailure } from './data-dir.ts';
import { isLoopbackAddress } from './hosts.ts';
import { DEFAULT_IMPORT_QUOTA } from './imports/store.ts';
import { closeTls, ensureServingCert, listenTls } from './kube-api/kube-tls.ts';
import { clientURL, writeKubeconfig } from './kube-api/kubeconfig.ts';
import { buildObserveApp } from './observe/app.ts';
import { inClusterAccess, type KubeAccess, loadKubeconfig } from './observe/kube-access.ts';
import { otlpConfig } from './otel/config.ts';
import { type PrivateContainerd, startPrivateContainerd } from './private-containerd.ts';
import { DataDirInUseError } from './store/lock.ts';

const HELP = `Usage: syncscope [options]

Runs the kubelet's pod-worker engine against a container runtime and serves the dashboard.

Options (each also from the environment):
  --host <addr>               listen address (HOST, default 127.0.0.1). Beyond loopback needs SYNCSCOPE_TOKEN
                              (at least 16 characters; clients send it as Authorization: Bearer <token>)
  --allowed-host <name>       a further Host name to answer to, besides the listen address and loopback;
                              repeatable (ALLOWED_HOSTS, comma separated)
  --port <n>                  listen port (PORT, default 8080; 0 = any free port)
  --runtime-endpoint <url>    CRI endpoint of a real runtime, e.g. unix:///run/containerd/containerd.sock
                              (RUNTIME_ENDPOINT; default: the embedded simulated node)
  --data-dir <dir>            state directory: pods, trace journal, simulator socket and logs
                              (DATA_DIR, default ./.syncscope)
  --journal-segment-bytes <n> trace journal segment size (JOURNAL_SEGMENT_BYTES, default 8388608)
  --journal-max-bytes <n>     trace journal total size kept on disk (JOURNAL_MAX_BYTES, default 268435456)
  --journal-flush-ms <n>      longest time an event waits in memory before the journal writes it
                              (JOURNAL_FLUSH_MS, default 100)
  --no-examples               do not apply the example pods at startup (NO_EXAMPLES=1)
  --node-name <name>          the name of this node in the API (the Node object, pods' spec.nodeName, events'
                              source) (NODE_NAME, default the host name, as the kubelet's --hostname-override)
  --kube-tls-port <n>         with SYNCSCOPE_TOKEN: the https port for Kubernetes clients (kubectl sends a
                              token only over https; <data-dir>/kubeconfig names it) (KUBE_TLS_PORT,
                              default 0 = any free port)
  --max-pods <n>              pods the node admits; past it a new pod is rejected (Failed, OutOfpods)
                              (MAX_PODS, default 110, the kubelet's)
  --container-log-max-size <q>  a running container's log is rotated at this size, bytes or 10Mi, 500Ki, 1Gi
                              (CONTAINER_LOG_MAX_SIZE, default 10Mi, the kubelet's)
  --container-log-max-files <n>  log files kept per container, the live one included, >= 2
                              (CONTAINER_LOG_MAX_FILES, default 5, the kubelet's)
  --imports-max-count <n>     imported logs kept at most; one more is refused (403 exceeded quota)
                              (IMPORTS_MAX_COUNT, default 100)
  --imports-max-bytes <q>     bytes the imported logs keep on disk in all (their logs and traces), bytes or
                              512Mi, 2Gi; an import past it is refused (IMPORTS_MAX_BYTES, default 1Gi)
  --config <file>             engine constants, YAML or JSON, with the names GET /api/v1/node shows
                              (e.g. {maxContainerBackOffMs: 60000}) (KUBELET_CONFIG)
  --observe                   watch the node's own kubelet, read-only: needs --runtime-endpoint; no pods are
                              run, created, stopped or removed (OBSERVE=1)
  --v <n>                     verbosity of <data-dir>/kubelet.log, the engine's log in a kubelet's format, as
                              the kubelet's -v (KUBELET_V, default 2)
  --private-containerd [dir]  start a private containerd (root; scripts/containerd/up.sh) and run on it;
                              it and everything it made are removed on exit (PRIVATE_CONTAINERD=dir)
  --kubelet-log <file>        observe mode: follow this kubelet log like tail -F (KUBELET_LOG)
  --kubelet-journal           observe mode: follow the kubelet's journal (journalctl -u kubelet -f)
                              (KUBELET_JOURNAL=1); excludes --kubelet-log
  --kubeconfig <file>         observe mode: watch this node's pods and their Events on the API server the
                              file's current context names (list and watch only); inside a pod without it,
                              the service account when one is mounted
  --otlp-endpoint <url>       export the trace as OpenTelemetry spans over OTLP/HTTP protobuf to this
                              collector (<url>/v1/traces) (OTEL_EXPORTER_OTLP_ENDPOINT; also read:
                              OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES)
  -h, --help                  this text
`;

/** A byte count as the kubelet's quantities write it: 1048576, 1024Ki, 10Mi, 1Gi (or K, M, G: powers of 1000). */
function parseByteQuantity(text: string): number | undefined {
  const m = /^(\d{1,15})(Ki|Mi|Gi|K|M|G)?$/.exec(text);
  if (!m) return undefined;
  const unit = { Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, K: 1e3, M: 1e6, G: 1e9 }[m[2] ?? ''] ?? 1;
  const n = Number(m[1]) * unit;
  return Number.isSafeInteger(n) ? n : undefined;
}

function fail(message: string): never {
  process.stderr.write(`syncscope: ${message}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>;
  const options = {
    host: { type: 'string' },
    'allowed-host': { type: 'string', multiple: true },
    port: { type: 'string' },
    'runtime-endpoint': { type: 'string' },
    'data-dir': { type: 'string' },
    'no-examples': { type: 'boolean' },
    'journal-segment-bytes': { type: 'string' },
    'journal-max-bytes': { type: 'string' },
    'journal-flush-ms': { type: 'string' },
    'max-pods': { type: 'string' },
    'container-log-max-size': { type: 'string' },
    'container-log-max-files': { type: 'string' },
    'imports-max-count': { type: 'string' },
    'imports-max-bytes': { type: 'string' },
    'node-name': { type: 'string' },
    'kube-tls-port': { type: 'string' },
    config: { type: 'string' },
    v: { type: 'string' },
    'private-containerd': { type: 'boolean' },
    'kubelet-log': { type: 'string' },
    'kubelet-journal': { type: 'boolean' },
    kubeconfig: { type: 'string' },
    observe: { type: 'boolean' },
    'otlp-endpoint': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  try {
    parsed = parseArgs({ options, allowPositionals: true });
  } catch (e) {
    fail(`${(e as Error).message}\n\n${HELP}`);
  }
  const v = parsed.values;
  if (v.help) {
    process.stdout.write(HELP);
    return;
  }
  const env = process.env;
  const host = v.host ?? env.HOST ?? '127.0.0.1';
  const portText = v.port ?? env.PORT ?? '8080';
  if (!/^\d+$/.test(portText) || Number(portText) > 65535) fail(`--port must be 0..65535, got ${portText}`);
  const port = Number(portText);
  let runtimeEndpoint = v['runtime-endpoint'] ?? (env.RUNTIME_ENDPOINT || undefined);
  const privateDir =
    v['private-containerd'] === true
      ? (parsed.positionals[0] ?? '/tmp/syncscope-containerd')
      : env.PRIVATE_CONTAINERD || undefined;
  if (parsed.positionals.length > (v['private-containerd'] ? 1 : 0))
    fail(`unexpected argument ${parsed.positionals.join(' ')}\n\n${HELP}`);
  if (privateDir && runtimeEndpoint) fail('--private-containerd and --runtime-endpoint exclude each other');
  const kubeletLogFile = v['kubelet-log'] ?? (env.KUBELET_LOG || undefined);
  const kubeletJournal =
    v['kubelet-journal'] === true || ['1', 'true', 'yes'].includes(env.KUBELET_JOURNAL ?? '');
  if (kubeletLogFile !== undefined && kubeletJournal)
    fail('--kubelet-log and --kubelet-journal exclude each other');
  const observe = v.observe === true || ['1', 'true', 'yes'].includes(env.OBSERVE ?? '');
  if (observe && (!runtimeEndpoint || privateDir))
    fail('--observe needs --runtime-endpoint, the CRI socket of the node whose kubelet to watch');
  if ((kubeletLogFile !== undefined || kubeletJournal) && !observe)
    fail('--kubelet-log and --kubelet-journal need --observe');
  if (v.kubeconfig !== undefined && !observe) fail('--kubeconfig needs --observe');
  let kube: KubeAccess | undefined;
  try {
    if (observe)
      kube = v.kubeconfig !== undefined ? loadKubeconfig(resolve(v.kubeconfig)) : inClusterAccess(env);
  } catch (e) {
    fail(`--kubeconfig: ${(e as Error).message}`);
  }
  const otlp = otlpConfig(v['otlp-endpoint'], env);
  if (typeof otlp === 'string') fail(otlp);
  const configFile = v.config ?? (env.KUBELET_CONFIG || undefined);
  let config = configFile ? readKubeletConfig(configFile) : undefined;
  const maxPodsText = v['max-pods'] ?? (env.MAX_PODS || undefined);
  if (maxPodsText !== undefined) {
    if (!/^\d+$/.test(maxPodsText) || !Number.isSafeInteger(Number(maxPodsText)))
      fail(`--max-pods must be a whole number >= 0, got ${maxPodsText}`);
    config = { ...config, maxPods: Number(maxPodsText) };
  }
  const logSizeText = v['container-log-max-size'] ?? (env.CONTAINER_LOG_MAX_SIZE || undefined);
  if (logSizeText !== undefined) {
    const size = parseByteQuantity(logSizeText);
    if (size === undefined)
      fail(`--container-log-max-size must be a size like 10Mi, 500Ki or 1048576, got ${logSizeText}`);
    config = { ...config, containerLogMaxSizeBytes: size };
  }
  const logFilesText = v['container-log-max-files'] ?? (env.CONTAINER_LOG_MAX_FILES || undefined);
  if (logFilesText !== undefined) {
    if (!/^\d{1,6}$/.test(logFilesText) || Number(logFilesText) < 2)
      fail(`--container-log-max-files must be a whole number >= 2, got ${logFilesText}`);
    config = { ...config, containerLogMaxFiles: Number(logFilesText) };
  }
  const importsCountText = v['imports-max-count'] ?? (env.IMPORTS_MAX_COUNT || undefined);
  if (importsCountText !== undefined && !/^\d{1,9}$/.test(importsCountText))
    fail(`--imports-max-count must be a whole number >= 0, got ${importsCountText}`);
  const importsBytesText = v['imports-max-bytes'] ?? (env.IMPORTS_MAX_BYTES || undefined);
  const importsBytes = importsBytesText === undefined ? undefined : parseByteQuantity(importsBytesText);
  if (importsBytesText !== undefined && importsBytes === undefined)
    fail(`--imports-max-bytes must be a size like 1Gi, 512Mi or 1073741824, got ${importsBytesText}`);
  const importsQuota = {
    maxCount: importsCountText === undefined ? DEFAULT_IMPORT_QUOTA.maxCount : Number(importsCountText),
    maxBytes: importsBytes ?? DEFAULT_IMPORT_QUOTA.maxBytes,
  };
  const tlsPortText = v['kube-tls-port'] ?? (env.KUBE_TLS_PORT || '0');
  if (!/^\d+$/.test(tlsPortText) || Number(tlsPortText) > 65535)
    fail(`--kube-tls-port must be 0..65535, got ${tlsPortText}`);
  const nodeName = v['node-name'] ?? (env.NODE_NAME || config?.nodeName || defaultNodeName());
  if (nodeName.length > 253 || !DNS1123_SUBDOMAIN.test(nodeName))
    fail(`--node-name must be a lowercase DNS-1123 subdomain (e.g. node-1), got ${nodeName}`);
  config = { ...config, nodeName };
  const dataDir = resolve(v['data-dir'] ?? env.DATA_DIR ?? '.syncscope');
  const noExamples = v['no-examples'] === true || ['1', 'true', 'yes'].includes(env.NO_EXAMPLES ?? '');
  const token = env.SYNCSCOPE_TOKEN || undefined;
  if (token !== undefined && token.length < MIN_TOKEN_LENGTH) {
    fail(
      `SYNCSCOPE_TOKEN is ${token.length} characters long; it must have at least ${MIN_TOKEN_LENGTH}` +
        ' (e.g. openssl rand -hex 24)',
    );
  }
  const allowedHosts = (v['allowed-host'] ?? (env.ALLOWED_HOSTS ?? '').split(','))
    .map((h) => h.trim())
    .filter((h) => h !== '');
  for (const h of allowedHosts) {
    if (!/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)$/.test(h))
      fail(`--allowed-host must be a host name or address, got ${h}`);
  }
  const bytes = (flag: string, text: string | undefined): number | undefined => {
    if (text === undefined || text === '') return undefined;
    if (!/^\d+$/.test(text) || Number(text) < 1024)
      fail(`--${flag} must be a byte count >= 1024, got ${text}`);
    return Number(text);
  };
  const journalSegmentBytes = bytes(
    'journal-segment-bytes',
    v['journal-segment-bytes'] ?? env.JOURNAL_SEGMENT_BYTES,
  );
  const vText = v.v ?? (env.KUBELET_V || '2');
  if (!/^\d+$/.test(vText) || Number(vText) > 10) fail(`--v must be 0..10, got ${vText}`);
  const kubeletLogV = Number(vText);
  const journalMaxBytes = bytes('journal-max-bytes', v['journal-max-bytes'] ?? env.JOURNAL_MAX_BYTES);
  const flushText = v['journal-flush-ms'] ?? env.JOURNAL_FLUSH_MS;
  let journalFlushMs: number | undefined;
  if (flushText !== undefined && flushText !== '') {
    if (!/^\d+$/.test(flushText) || Number(flushText) < 1 || Number(flushText) > 60_000)
      fail(`--journal-flush-ms must be 1..60000 milliseconds, got ${flushText}`);
    journalFlushMs = Number(flushText);
  }
  if (!isLoopbackAddress(host) && !token) {
    fail(
      `refusing to listen on ${host}: anyone who can reach it could create and delete pods on this node.\n` +
        'Set SYNCSCOPE_TOKEN to a secret of at least 16 characters (clients then send\n' +
        '"Authorization: Bearer <token>"; the dashboard asks for it),\n' +
        'or keep the default --host 127.0.0.1.',
    );
  }

  // before anything starts: a data dir we cannot write would otherwise fail somewhere deep inside
  const unwritable = checkDataDir(dataDir);
  if (unwritable) {
    process.stderr.write(`syncscope: ${unwritable}\n`);
    process.exit(1);
  }

  let ctd: PrivateContainerd | undefined;
  if (privateDir) {
    if (process.getuid?.() !== 0) fail('--private-containerd needs root (containerd, runc and CNI do)');
    process.stdout.write(`starting a private containerd in ${privateDir} ...\n`);
    ctd = await startPrivateContainerd(privateDir);
    runtimeEndpoint = ctd.endpoint;
  }

  const built = await (observe ? buildObserveApp : buildApp)({
    runtimeEndpoint: runtimeEndpoint as string,
    ...(config ? { config } : {}),
    dataDir,
    examples: !noExamples,
    host,
    allowedHosts,
    token,
    journalSegmentBytes,
    journalMaxBytes,
    journalFlushMs,
    ...(kubeletLogFile !== undefined || kubeletJournal
      ? { kubeletLog: kubeletJournal ? { journal: true } : { file: resolve(kubeletLogFile as string) } }
      : {}),
    kubeletLogV,
    ...(kube ? { kube } : {}),
    importsQuota,
    ...(otlp ? { otlp } : {}),
    logger: { level: env.LOG_LEVEL ?? 'warn' },
  }).catch(async (e: unknown) => {
    await ctd?.stop();
    process.stderr.write(`syncscope: ${e instanceof DataDirInUseError ? e.message : startFailure(e)}\n`);
    process.exit(1);
  });
  let tls: Awaited<ReturnType<typeof listenTls>> | undefined;
  handleShutdownSignals({
    close: async () => {
      if (tls) await closeTls(tls);
      await built.close();
      await ctd?.stop();
    },
    // a private containerd's teardown (pods, shims, bridge) takes longer than the server's own 2 s
    ...(ctd ? { timeoutMs: 30_000 } : {}),
  });

  try {
    await built.app.listen({ host, port });
  } catch (e) {
    await built.close();
    fail(`cannot listen on ${host}:${port}: ${(e as Error).message}`);
  }
  const addr = built.app.server.address();
  const actualPort = typeof addr === 'object' && addr ? addr.port : port;
  const shownHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const what = built.simulated
    ? 'simulated node'
    : `${observe ? 'observing the kubelet on ' : 'runtime '}${built.runtimeEndpoint}`;
  process.stdout.write(`Syncscope listening on http://${shownHost}:${actualPort} (${what})\n`);
  if (otlp) process.stdout.write(`exporting the trace as OpenTelemetry spans to ${otlp.tracesUrl}\n`);
  try {
    let server = clientURL(host, actualPort);
    let caCert: string | undefined;
    if (token) {
      // client-go sends a kubeconfig's token only over https
      const cert = ensureServingCert(dataDir, host);
      tls = await listenTls(built.app, cert, host, Number(tlsPortText));
      const tlsAddr = tls.address();
      server = clientURL(host, typeof tlsAddr === 'object' && tlsAddr ? tlsAddr.port : 0, 'https');
      caCert = cert.cert;
    }
    const file = writeKubeconfig(dataDir, { server, token, caCert });
    process.stdout.write(`kubectl: kubectl --kubeconfig ${file} get pods (${server})\n`);
  } catch (e) {
    process.stderr.write(`syncscope: no kubeconfig for kubectl: ${(e as Error).message}\n`);
  }
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The kubelet's default node name: the host name, lowercased; syncscope-node if that is not a valid name. */
function defaultNodeName(): string {
  const h = hostname().toLowerCase();
  return h.length <= 253 && DNS1123_SUBDOMAIN.test(h) ? h : 'syncscope-node';
}

/** --config: a partial KubeletConfiguration; unknown names and wrong types are refused. */
function readKubeletConfig(file: string): Partial<KubeletConfiguration> {
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(file, 'utf8'));
  } catch (e) {
    fail(`--config ${file}: ${(e as Error).message}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail(`--config ${file}: not a mapping`);
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(raw as Record<string, unknown>)) {
    if (!(k in defaultKubeletConfiguration)) fail(`--config ${file}: unknown field "${k}"`);
    const want = typeof defaultKubeletConfiguration[k as keyof KubeletConfiguration];
    if (typeof val !== want) fail(`--config ${file}: ${k} must be a ${want}, got ${JSON.stringify(val)}`);
    if (want === 'number' && !((val as number) >= 0)) fail(`--config ${file}: ${k} must be >= 0`);
    out[k] = val;
  }
  return out as Partial<KubeletConfiguration>;
}

main().catch((e) => {
  process.stderr.write(`syncscope: ${startFailure(e)}\n`);
  process.exit(1);
});
