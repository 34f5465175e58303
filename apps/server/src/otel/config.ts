/**
 * Where and how the trace is exported over OTLP: `--otlp-endpoint URL` (main.ts), else the environment the
 * OpenTelemetry SDKs read (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT taken as is, OTEL_EXPORTER_OTLP_ENDPOINT with
 * `v1/traces` appended, as the OTLP exporter specification says), and the batch processor's OTEL_BSP_*
 * settings. Headers (OTEL_EXPORTER_OTLP_HEADERS), the timeout and the service name are read by the SDK itself.
 *
 * Pure: the environment is passed in. A bad value is an error text naming the flag or variable (main.ts exits
 * 2 with it); no endpoint at all means no export.
 */

export interface OtlpConfig {
  /** Where spans are POSTed: <endpoint>/v1/traces. */
  tracesUrl: string;
  /** BatchSpanProcessor: spans held while the collector is slow or away; past it new spans are dropped. */
  maxQueueSize: number;
  maxExportBatchSize: number;
  scheduledDelayMs: number;
  exportTimeoutMs: number;
}

type Env = Record<string, string | undefined>;

function url(text: string, what: string): URL | string {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return `${what} must be an http:// or https:// URL, got ${JSON.stringify(text)}`;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    return `${what} must be an http:// or https:// URL, got ${JSON.stringify(text)}`;
  return u;
}

function count(env: Env, name: string, dflt: number, min: number): number | string {
  const text = env[name];
  if (text === undefined || text === '') return dflt;
  if (!/^\d+$/.test(text) || Number(text) < min)
    return `${name} must be a whole number >= ${min}, got ${text}`;
  return Number(text);
}

/** The export settings, undefined when no endpoint is given, or an error text. */
export function otlpConfig(flag: string | undefined, env: Env): OtlpConfig | undefined | string {
  let tracesUrl: string;
  if (flag !== undefined || env.OTEL_EXPORTER_OTLP_ENDPOINT || !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) {
    const text = flag ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
    if (text === undefined || text === '') return undefined;
    const u = url(text, flag !== undefined ? '--otlp-endpoint' : 'OTEL_EXPORTER_OTLP_ENDPOINT');
    if (typeof u === 'string') return u;
    tracesUrl = `${u.href.replace(/\/+$/, '')}/v1/traces`;
  } else {
    const u = url(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
    if (typeof u === 'string') return u;
    tracesUrl = u.href;
  }
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (protocol && protocol !== 'http/protobuf')
    return `OTLP export speaks http/protobuf only, but OTEL_EXPORTER_OTLP_PROTOCOL is ${protocol}`;
  const maxQueueSize = count(env, 'OTEL_BSP_MAX_QUEUE_SIZE', 2048, 1);
  const maxExportBatchSize = count(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 512, 1);
  const scheduledDelayMs = count(env, 'OTEL_BSP_SCHEDULE_DELAY', 5000, 0);
  const exportTimeoutMs = count(env, 'OTEL_BSP_EXPORT_TIMEOUT', 30_000, 1);
  for (const v of [maxQueueSize, maxExportBatchSize, scheduledDelayMs, exportTimeoutMs])
    if (typeof v === 'string') return v;
  return {
    tracesUrl,
    maxQueueSize: maxQueueSize as number,
    maxExportBatchSize: Math.min(maxExportBatchSize as number, maxQueueSize as number),
    scheduledDelayMs: scheduledDelayMs as number,
    exportTimeoutMs: exportTimeoutMs as number,
  };
}
