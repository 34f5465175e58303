/**
 * OtlpExport: the trace out as OpenTelemetry spans over OTLP/HTTP protobuf, with the official SDK: SpanModel
 * (span-model.ts) turns events into span records, each becomes the SDK's ReadableSpan and goes to a
 * BatchSpanProcessor in front of the OTLPTraceExporter (exporter-trace-otlp-proto).
 *
 * `listener` is subscribed to the TraceRecorder by buildApp / buildObserveApp, or fed from a file by
 * export-file.ts. It runs inside record(): it maps the event and, when a span ends, hands it to the batch
 * queue, nothing more; encoding and sending happen later on the processor's timer. The queue is bounded
 * (maxQueueSize): while the collector is slow or away, spans past it are dropped and counted
 * (counters.ts), so a dead collector costs dropped spans, never time in the engine's loop.
 *
 * Resource attributes (semantic conventions): service.name=syncscope (OTEL_SERVICE_NAME overrides),
 * service.version, k8s.node.name (the node's name; an imported log's own node per span), then anything in
 * OTEL_RESOURCE_ATTRIBUTES. close() ends the open spans, sends what is queued (within the export timeout) and
 * shuts the exporter down.
 */
import { randomBytes } from 'node:crypto';
import { type Attributes, SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api';
import { ExportResultCode, hrTimeDuration, millisToHrTime } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  defaultResource,
  detectResources,
  envDetector,
  type Resource,
  resourceFromAttributes,
} from '@opentelemetry/resources';
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import type { TraceEvent } from '@syncscope/core/trace';
import { Registry } from 'prom-client';
import type { OtlpConfig } from './config.ts';
import { OtlpCounters } from './counters.ts';
import { SpanModel, type SpanRecord } from './span-model.ts';

export interface OtlpExportOptions {
  config: OtlpConfig;
  /** k8s.node.name of this server's spans. */
  nodeName: string;
  version: string;
  /** Where the counters go (the server's /metrics registry; default a registry of its own). */
  registry?: Registry;
  /** Observe mode: no pod workers, events go to Observed spans (span-model.ts). */
  observed?: boolean;
  /** The engine's clock (trace times); tick() and close() end spans at this time. Default Date.now. */
  now?: () => number;
}

const SCOPE = { name: '@syncscope/server' };
const TICK_MS = 5000;

export class OtlpExport {
  readonly listener: (ev: TraceEvent) => void;
  readonly model: SpanModel;
  private readonly processor: BatchSpanProcessor;
  private readonly counters: OtlpCounters;
  private readonly resources = new Map<string, Resource>();
  private readonly base: Resource;
  private readonly maxQueue: number;
  private readonly now: () => number;
  private readonly timer: NodeJS.Timeout;
  /** spans handed to the processor and not yet taken by an export: its queue, counted from outside */
  private queued = 0;
  private closed: Promise<void> | undefined;
  private idHigh = randomBytes(4).toString('hex');
  private idLow = randomBytes(4).readUInt32BE(0);

  constructor(opts: OtlpExportOptions) {
    const { config } = opts;
    this.now = opts.now ?? Date.now;
    this.maxQueue = config.maxQueueSize;
    this.counters = new OtlpCounters(opts.registry ?? new Registry(), () => this.queued);
    // env last: OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override ours
    this.base = defaultResource()
      .merge(
        resourceFromAttributes({
          'service.name': 'syncscope',
          'service.version': opts.version,
          'k8s.node.name': opts.nodeName,
        }),
      )
      .merge(detectResources({ detectors: [envDetector] }));
    const exporter = new OTLPTraceExporter({ url: config.tracesUrl });
    this.processor = new BatchSpanProcessor({
      exporter: this.counting(exporter),
      maxQueueSize: config.maxQueueSize,
      maxExportBatchSize: config.maxExportBatchSize,
      scheduledDelayMillis: config.scheduledDelayMs,
      exportTimeoutMillis: config.exportTimeoutMs,
    });
    this.model = new SpanModel({
      emit: (span) => this.offer(span),
      spanId: () => this.nextSpanId(),
      ...(opts.observed ? { observed: true } : {}),
    });
    this.listener = (ev) => this.model.push(ev);
    this.timer = setInterval(() => this.model.tick(this.now()), TICK_MS);
    this.timer.unref();
  }

  /** Ends the open spans, sends everything queued, stops the exporter. Idempotent. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      clearInterval(this.timer);
      this.model.close(this.now());
      await this.processor.shutdown().catch(() => {});
    })();
    return this.closed;
  }

  /** Spans the collector accepted, and spans dropped, so far. */
  get totals(): { readonly exported: number; readonly dropped: number } {
    return this.counters.totals;
  }

  /** Sends what is queued now (an imported log's end). */
  flush(): Promise<void> {
    return this.processor.forceFlush().catch(() => {});
  }

  private nextSpanId(): string {
    this.idLow = (this.idLow + 1) >>> 0;
    return this.idHigh + this.idLow.toString(16).padStart(8, '0');
  }

  private offer(rec: SpanRecord): void {
    if (this.queued >= this.maxQueue) {
      this.counters.droppedSpans('queue_full', 1);
      return;
    }
    this.queued++;
    this.processor.onEnd(this.readable(rec));
  }

  /** The exporter with the queue and the outcome counted around each export. */
  private counting(inner: SpanExporter): SpanExporter {
    return {
      export: (spans, done) => {
        this.queued = Math.max(0, this.queued - spans.length);
        inner.export(spans, (result) => {
          if (result.code === ExportResultCode.SUCCESS) this.counters.exportedSpans(spans.length);
          else this.counters.droppedSpans('export_failed', spans.length);
          done(result);
        });
      },
      shutdown: () => inner.shutdown(),
      forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
    };
  }

  private resourceOf(node: string | undefined): Resource {
    if (node === undefined) return this.base;
    let r = this.resources.get(node);
    if (!r) {
      r = this.base.merge(resourceFromAttributes({ 'k8s.node.name': node }));
      this.resources.set(node, r);
    }
    return r;
  }

  private readable(rec: SpanRecord): ReadableSpan {
    const startTime = millisToHrTime(rec.startMs);
    const endTime = millisToHrTime(rec.endMs);
    const ctx = { traceId: rec.traceId, spanId: rec.spanId, traceFlags: TraceFlags.SAMPLED };
    return {
      name: rec.name,
      kind: rec.name.startsWith('CRI ') ? SpanKind.CLIENT : SpanKind.INTERNAL,
      spanContext: () => ctx,
      ...(rec.parentSpanId !== undefined
        ? {
            parentSpanContext: {
              traceId: rec.traceId,
              spanId: rec.parentSpanId,
              traceFlags: TraceFlags.SAMPLED,
              isRemote: false,
            },
          }
        : {}),
      startTime,
      endTime,
      status:
        rec.error !== undefined
          ? { code: SpanStatusCode.ERROR, message: rec.error }
          : { code: SpanStatusCode.UNSET },
      attributes: rec.attributes as Attributes,
      links: [],
      events: rec.events.map((e) => ({
        name: e.name,
        time: millisToHrTime(e.timeMs),
        attributes: e.attributes as Attributes,
      })),
      duration: hrTimeDuration(startTime, endTime),
      ended: true,
      resource: this.resourceOf(rec.node),
      instrumentationScope: SCOPE,
      droppedAttributesCount: 0,
      droppedEventsCount: rec.droppedEvents,
      droppedLinksCount: 0,
    };
  }
}

/**
 * For buildApp / buildObserveApp: subscribes an OtlpExport to the trace when `config` is given (call it before
 * the engine starts, so no span is missed). close() unsubscribes, then ends and sends the open spans.
 */
export function attachOtlp(
  trace: { subscribe(l: (ev: TraceEvent) => void): () => void },
  config: OtlpConfig | undefined,
  opts: Omit<OtlpExportOptions, 'config'>,
): { close(): Promise<void> } {
  if (!config) return { close: () => Promise.resolve() };
  const exp = new OtlpExport({ ...opts, config });
  const unsubscribe = trace.subscribe(exp.listener);
  return {
    close: () => {
      unsubscribe();
      return exp.close();
    },
  };
}
