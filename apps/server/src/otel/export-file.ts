/**
 * `pnpm -s export-otlp FILE.ndjson [--otlp-endpoint URL]` (FILE `-` reads stdin): a trace file (the dashboard's
 * export, or `pnpm -s import-log` of a kubelet's log) sent once to an OpenTelemetry Collector as spans, the
 * way a live server sends them (exporter.ts). The endpoint and OTEL_* settings are main.ts's. Each span's
 * k8s.node.name is its event's `node` (an imported log names its hosts), else OTEL_RESOURCE_ATTRIBUTES' or
 * "syncscope-node". Spans still open at the end of the file end at its last event.
 *
 * Prints to stderr what it sent and dropped; exit 0 when nothing was dropped, 1 when some spans were, 2 on bad
 * arguments, an unreadable file or a line that is not a trace event.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { checkTraceEvent, type TraceEvent } from '@syncscope/core/trace';
import { SERVER_VERSION } from '../app.ts';
import { otlpConfig } from './config.ts';
import { OtlpExport } from './exporter.ts';

const USAGE = 'usage: export-otlp FILE.ndjson|- [--otlp-endpoint URL]';

function fail(msg: string, code = 2): never {
  process.stderr.write(`export-otlp: ${msg}\n`);
  process.exit(code);
}

async function main(): Promise<void> {
  let a: { values: { 'otlp-endpoint'?: string; help?: boolean }; positionals: string[] };
  try {
    a = parseArgs({
      options: { 'otlp-endpoint': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
    });
  } catch (e) {
    fail(`${(e as Error).message}\n${USAGE}`);
  }
  if (a.values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const file = a.positionals[0];
  if (!file || a.positionals.length > 1) fail(USAGE);
  const config = otlpConfig(a.values['otlp-endpoint'], process.env);
  if (typeof config === 'string') fail(config);
  if (!config) fail(`no collector: give --otlp-endpoint URL or OTEL_EXPORTER_OTLP_ENDPOINT\n${USAGE}`);

  let last = 0;
  // a file is sent as fast as it is read: the queue holds it whole rather than dropping
  const exp = new OtlpExport({
    config: { ...config, maxQueueSize: Math.max(config.maxQueueSize, 1 << 20) },
    nodeName: 'syncscope-node',
    version: SERVER_VERSION,
    now: () => last,
  });
  const input = file === '-' ? process.stdin : createReadStream(file);
  input.on('error', (e: Error) => fail(`cannot read ${file}: ${e.message}`));
  let n = 0;
  for await (const line of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) {
    n++;
    if (line.trim() === '') continue;
    let ev: unknown;
    try {
      ev = JSON.parse(line);
    } catch (e) {
      fail(`${file}:${n}: not JSON: ${(e as Error).message}`);
    }
    const bad = checkTraceEvent(ev);
    if (bad) fail(`${file}:${n}: not a trace event: ${bad}`);
    last = Math.max(last, (ev as TraceEvent).time);
    exp.listener(ev as TraceEvent);
  }
  await exp.close();
  const { exported: sent, dropped } = exp.totals;
  process.stderr.write(
    `export-otlp: ${n} lines, ${sent} spans sent to ${config.tracesUrl}, ${dropped} dropped\n`,
  );
  process.exit(dropped > 0 ? 1 : 0);
}

main().catch((e) => fail((e as Error).stack ?? String(e), 1));
