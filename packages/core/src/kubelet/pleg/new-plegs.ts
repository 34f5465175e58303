/**
 * The PLEGs as NewMainKubelet builds them (kubelet.go): the generic PLEG always, relisting every
 * genericPlegRelistPeriod — or, with the EventedPLEG feature on and a runtime that streams events, at the evented
 * PLEG's longer period, with the evented PLEG in front of it falling back to the generic period when its stream
 * fails. The pod cache then keeps only the newest status of a pod (the evented PLEG may write before a relist).
 * Managed mode (newKubeletComponents) and observe mode build theirs here.
 */
import type { Clock } from '../../clock/clock.ts';
import type { TraceRecorder } from '../../events/recorder.ts';
import type { KubeletConfiguration } from '../configuration.ts';
import type { PodCache } from '../container/cache.ts';
import type { Runtime } from '../container/runtime.ts';
import { EventedPLEG, type EventedRuntime } from './evented.ts';
import { GenericPLEG } from './generic.ts';

export interface PLEGs {
  pleg: GenericPLEG;
  eventedPleg: EventedPLEG | undefined;
}

/** Builds the PLEGs; `evented` is the runtime's event stream, given only when the feature is on. Starts nothing. */
export function newPLEGs(
  runtime: Runtime,
  evented: EventedRuntime | undefined,
  cache: PodCache,
  deps: { clock: Clock; trace: TraceRecorder },
  c: KubeletConfiguration,
): PLEGs {
  const { clock, trace } = deps;
  const generic = {
    relistPeriodMs: c.genericPlegRelistPeriodMs,
    relistThresholdMs: c.genericPlegRelistThresholdMs,
  };
  const pleg = new GenericPLEG(
    runtime,
    cache,
    clock,
    trace,
    evented
      ? { relistPeriodMs: c.eventedPlegRelistPeriodMs, relistThresholdMs: c.eventedPlegRelistThresholdMs }
      : generic,
    c.plegChannelCapacity,
  );
  if (!evented) return { pleg, eventedPleg: undefined };
  cache.ignoreOlderWrites = true;
  const eventedPleg = new EventedPLEG(evented, pleg, cache, clock, trace, {
    maxStreamRetries: c.eventedPlegMaxStreamRetries,
    fallbackRelistDuration: generic,
  });
  return { pleg, eventedPleg };
}
