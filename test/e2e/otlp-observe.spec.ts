/**
 * OTLP export in observe mode, on the simulated node: a managed instance runs a crash-looping pod, an observer
 * (buildObserveApp, real gRPC to the node's socket) exports what it sees to a collector stand-in on loopback
 * (test/support/otlp-receiver.ts, the official OTLP protos). With no pod workers of its own it sends the pod as
 * Observed spans in the pod's trace, carrying the PLEG events and the inferred back-off windows; closing the
 * observer ends and sends the open span. /metrics of the observer counts what was exported.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildObserveApp } from '@syncscope/server/observe';
import { afterEach, describe, expect, it } from 'vitest';
import { example, startHarness } from '../support/harness.ts';
import { startOtlpReceiver } from '../support/otlp-receiver.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('OTLP export in observe mode', () => {
  it('sends an observed crash loop as Observed spans with PLEG and inferred back-off events', async () => {
    const receiver = await startOtlpReceiver();
    cleanups.push(() => receiver.close());
    const managed = await startHarness();
    cleanups.push(() => managed.close());
    const dir = await mkdtemp(join(tmpdir(), 'syncscope-otlp-observe-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    // what main.ts makes of --otlp-endpoint URL with OTEL_BSP_SCHEDULE_DELAY=100
    const otlp = {
      tracesUrl: `${receiver.url}/v1/traces`,
      maxQueueSize: 2048,
      maxExportBatchSize: 512,
      scheduledDelayMs: 100,
      exportTimeoutMs: 30_000,
    };
    const observed = await buildObserveApp({
      runtimeEndpoint: managed.built.runtimeEndpoint,
      dataDir: dir,
      logger: false,
      warn: () => {},
      otlp,
    });
    let open = true;
    cleanups.push(async () => {
      if (open) await observed.close();
    });

    const pod = await managed.apply(await example('crashloop.yaml'));
    const uid = pod.metadata.uid as string;
    await new Promise<void>((resolve) => {
      const off = observed.trace.subscribe((ev) => {
        if (ev.type === 'backoff' && ev.podUID === uid && ev.inferred) {
          off();
          resolve();
        }
      });
    });
    const metrics = await observed.app.inject({ url: '/metrics' });
    expect(metrics.body).toMatch(/^syncscope_otlp_spans_dropped_total\{reason="queue_full"\} 0$/m);
    await observed.close();
    open = false;

    const spans = receiver.spans.filter((s) => s.traceId === uid.replace(/-/g, ''));
    const windows = spans.filter((s) => s.name === 'Observed');
    expect(windows.length).toBeGreaterThanOrEqual(1);
    for (const w of windows) {
      expect(w.parentSpanId).toBe('');
      expect(w.attributes).toMatchObject({ 'k8s.pod.uid': uid, 'k8s.pod.name': 'crashloop' });
      expect(w.resource).toMatchObject({ 'service.name': 'syncscope' });
    }
    const events = windows.flatMap((w) => w.events);
    expect(events.some((e) => e.name === 'PLEG ContainerDied')).toBe(true);
    const backoff = events.find((e) => e.name === 'BackOff');
    expect(backoff?.attributes).toMatchObject({ 'backoff.inferred': true, 'k8s.container.name': 'app' });
  });
});
