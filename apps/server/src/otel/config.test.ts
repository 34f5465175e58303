import { describe, expect, it } from 'vitest';
import { otlpConfig } from './config.ts';

describe('otlpConfig', () => {
  it('is off without an endpoint', () => {
    expect(otlpConfig(undefined, {})).toBeUndefined();
  });

  it('appends v1/traces to the flag or OTEL_EXPORTER_OTLP_ENDPOINT, the flag first', () => {
    expect(otlpConfig('http://127.0.0.1:4318', {})).toMatchObject({
      tracesUrl: 'http://127.0.0.1:4318/v1/traces',
      maxQueueSize: 2048,
      maxExportBatchSize: 512,
    });
    expect(otlpConfig(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'https://c.example/otlp/' })).toMatchObject({
      tracesUrl: 'https://c.example/otlp/v1/traces',
    });
    expect(
      otlpConfig('http://a:4318', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://b:4318' }) as { tracesUrl: string },
    ).toMatchObject({ tracesUrl: 'http://a:4318/v1/traces' });
    expect(otlpConfig(undefined, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:4318/x' })).toMatchObject({
      tracesUrl: 'http://t:4318/x',
    });
  });

  it('names the flag or variable of a bad value', () => {
    expect(otlpConfig('localhost:4318', {})).toMatch(/^--otlp-endpoint must be an http/);
    expect(otlpConfig(undefined, { OTEL_EXPORTER_OTLP_ENDPOINT: 'nope' })).toMatch(
      /^OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
    expect(otlpConfig('http://a', { OTEL_BSP_MAX_QUEUE_SIZE: '0' })).toMatch(/^OTEL_BSP_MAX_QUEUE_SIZE/);
    expect(otlpConfig('http://a', { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toMatch(/http\/protobuf only/);
  });

  it('takes the batch settings from OTEL_BSP_*, a batch never larger than the queue', () => {
    expect(
      otlpConfig('http://a', { OTEL_BSP_MAX_QUEUE_SIZE: '100', OTEL_BSP_SCHEDULE_DELAY: '50' }),
    ).toMatchObject({ maxQueueSize: 100, maxExportBatchSize: 100, scheduledDelayMs: 50 });
  });
});
