/**
 * The command line: `pnpm start [--port 9000] [--runtime-endpoint unix:///run/containerd/containerd.sock]`.
 * Every flag also comes from the environment; the flag wins. Listens on loopback unless told otherwise, and
 * then only with SYNCSCOPE_TOKEN set (writes need it as a bearer token).
 *
 * State lives in --data-dir: the pods (brought back on restart, even after kill -9), the trace journal
 * (history and seq continue across restarts). SIGTERM/SIGINT stop it cleanly within 2 s (lifecycle.ts).
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp, handleShutdownSignals } from './app.ts';

const HELP = `Usage: syncscope [options]

Runs the kubelet's pod-worker engine against a container runtime and serves the dashboard.

Options (each also from the environment):
  --host <addr>               listen address (HOST, default 127.0.0.1). Beyond loopback needs SYNCSCOPE_TOKEN.
  --port <n>                  listen port (PORT, default 8080; 0 = any free port)
  --runtime-endpoint <url>    CRI endpoint of a real runtime, e.g. unix:///run/containerd/containerd.sock
                              (RUNTIME_ENDPOINT; default: the embedded simulated node)
  --data-dir <dir>            state directory: pods, trace journal, simulator socket and logs
                              (DATA_DIR, default ./.syncscope)
  --journal-segment-bytes <n> trace journal segment size (JOURNAL_SEGMENT_BYTES, default 8388608)
  --journal-max-bytes <n>     trace journal total size kept on disk (JOURNAL_MAX_BYTES, default 268435456)
  --no-examples               do not apply the example pods at startup (NO_EXAMPLES=1)
  -h, --help                  this text
`;

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function fail(message: string): never {
  process.stderr.write(`syncscope: ${message}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof options }>>;
  const options = {
    host: { type: 'string' },
    port: { type: 'string' },
    'runtime-endpoint': { type: 'string' },
    'data-dir': { type: 'string' },
    'no-examples': { type: 'boolean' },
    'journal-segment-bytes': { type: 'string' },
    'journal-max-bytes': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  try {
    parsed = parseArgs({ options, allowPositionals: false });
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
  const runtimeEndpoint = v['runtime-endpoint'] ?? (env.RUNTIME_ENDPOINT || undefined);
  const dataDir = resolve(v['data-dir'] ?? env.DATA_DIR ?? '.syncscope');
  const noExamples = v['no-examples'] === true || ['1', 'true', 'yes'].includes(env.NO_EXAMPLES ?? '');
  const token = env.SYNCSCOPE_TOKEN || undefined;
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
  const journalMaxBytes = bytes('journal-max-bytes', v['journal-max-bytes'] ?? env.JOURNAL_MAX_BYTES);
  if (!isLoopback(host) && !token) {
    fail(
      `refusing to listen on ${host}: anyone who can reach it could create and delete pods on this node.\n` +
        'Set SYNCSCOPE_TOKEN to a secret (clients then send "Authorization: Bearer <token>" to change state),\n' +
        'or keep the default --host 127.0.0.1.',
    );
  }

  const built = await buildApp({
    runtimeEndpoint,
    dataDir,
    examples: !noExamples,
    host,
    token,
    journalSegmentBytes,
    journalMaxBytes,
    logger: { level: env.LOG_LEVEL ?? 'warn' },
  });
  handleShutdownSignals({ close: () => built.close() });

  try {
    await built.app.listen({ host, port });
  } catch (e) {
    await built.close();
    fail(`cannot listen on ${host}:${port}: ${(e as Error).message}`);
  }
  const addr = built.app.server.address();
  const actualPort = typeof addr === 'object' && addr ? addr.port : port;
  const shownHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const what = built.simulated ? 'simulated node' : `runtime ${built.runtimeEndpoint}`;
  process.stdout.write(`Syncscope listening on http://${shownHost}:${actualPort} (${what})\n`);
}

main().catch((e) => {
  process.stderr.write(`syncscope: ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
