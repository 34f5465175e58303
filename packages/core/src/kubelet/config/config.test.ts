/**
 * PodConfig's delete as the apiserver's pod registry does it: what the API object becomes and which
 * config updates the sync loop (and the trace) get, for each kind of delete.
 */
import { describe, expect, it } from 'vitest';
import { type Pod, rfc3339 } from '../../api/v1.ts';
import { FakeClock } from '../../clock/fake-clock.ts';
import { TraceRecorder } from '../../events/recorder.ts';
import { PodConfig } from './config.ts';

function setup() {
  const clock = new FakeClock();
  const trace = new TraceRecorder(clock);
  const config = new PodConfig(clock, trace);
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', uid: 'u1' },
    spec: { containers: [{ name: 'app', image: 'busybox' }], terminationGracePeriodSeconds: 30 },
  };
  config.add(pod);
  const ops = () =>
    trace.since(0, (e) => e.type === 'config.update').map((e) => (e.type === 'config.update' ? e.op : ''));
  return { clock, config, ops };
}

describe('PodConfig.delete', () => {
  it('a graceful delete sets deletionTimestamp = now + grace and leaves the pod in the API', () => {
    const { clock, config, ops } = setup();
    config.delete('u1', undefined);
    const pod = config.get('u1');
    expect(pod?.metadata.deletionGracePeriodSeconds).toBe(30);
    expect(pod?.metadata.deletionTimestamp).toBe(rfc3339(clock.now() + 30_000));
    expect(ops()).toEqual(['ADD', 'DELETE']);
  });

  it('a second delete with a shorter grace shortens it, counted from the first request; a longer one changes nothing', async () => {
    const { clock, config, ops } = setup();
    const t0 = clock.now();
    config.delete('u1', 30);
    await clock.step(5_000);
    config.delete('u1', 60);
    expect(config.get('u1')?.metadata.deletionGracePeriodSeconds).toBe(30);
    config.delete('u1', 10);
    expect(config.get('u1')?.metadata.deletionGracePeriodSeconds).toBe(10);
    expect(config.get('u1')?.metadata.deletionTimestamp).toBe(rfc3339(t0 + 10_000));
    expect(ops()).toEqual(['ADD', 'DELETE', 'DELETE']);
  });

  it('grace 0 removes the API object at once: DELETE (grace 0), then REMOVE', () => {
    const { config, ops } = setup();
    config.delete('u1', 0);
    expect(config.get('u1')).toBeUndefined();
    expect(ops()).toEqual(['ADD', 'DELETE', 'REMOVE']);
  });

  it('a pod whose phase is terminal is deleted with grace 0 whatever was asked', () => {
    const { config, ops } = setup();
    config.delete('u1', 30, undefined, 'Succeeded');
    expect(config.get('u1')).toBeUndefined();
    expect(ops()).toEqual(['ADD', 'DELETE', 'REMOVE']);
  });

  it('finalDelete (the status manager) ends a deleted pod with a second DELETE at grace 0, then REMOVE', () => {
    const { config, ops } = setup();
    expect(config.finalDelete('u1')).toBe(false); // not deleted: the status manager leaves it alone
    config.delete('u1', 30);
    expect(config.finalDelete('u1')).toBe(true);
    expect(config.get('u1')).toBeUndefined();
    expect(ops()).toEqual(['ADD', 'DELETE', 'DELETE', 'REMOVE']);
  });
});
