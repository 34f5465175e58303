/**
 * The exporter's own numbers on /metrics (prom-client, in the server's KubeletMetrics registry):
 *
 *   syncscope_otlp_spans_exported_total            spans the collector accepted
 *   syncscope_otlp_spans_dropped_total{reason}     queue_full: the batch queue was full (collector slow or
 *                                                  away), the span was never queued; export_failed: the
 *                                                  collector refused or could not be reached after retries
 *   syncscope_otlp_queue_spans                     spans waiting in the batch queue, at scrape time
 *
 * Called from the exporter's listener and the SDK's export callbacks; only counters are touched.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

export class OtlpCounters {
  private readonly exported: Counter;
  private readonly dropped: Counter<'reason'>;
  /** the same counts, for a caller without a registry (export-file.ts, the benchmark) */
  readonly totals = { exported: 0, dropped: 0 };

  constructor(registry: Registry, queued: () => number) {
    const registers = [registry];
    this.exported = new Counter({
      name: 'syncscope_otlp_spans_exported_total',
      help: 'Spans the OTLP collector accepted.',
      registers,
    });
    this.dropped = new Counter({
      name: 'syncscope_otlp_spans_dropped_total',
      help: 'Spans not exported: queue_full (the batch queue was full), export_failed (the collector refused or was unreachable).',
      labelNames: ['reason'],
      registers,
    });
    this.dropped.inc({ reason: 'queue_full' }, 0);
    this.dropped.inc({ reason: 'export_failed' }, 0);
    new Gauge({
      name: 'syncscope_otlp_queue_spans',
      help: 'Spans waiting in the OTLP batch queue.',
      registers,
      collect() {
        this.set(queued());
      },
    });
  }

  exportedSpans(n: number): void {
    this.exported.inc(n);
    this.totals.exported += n;
  }

  droppedSpans(reason: 'queue_full' | 'export_failed', n: number): void {
    this.dropped.inc({ reason }, n);
    this.totals.dropped += n;
  }
}
