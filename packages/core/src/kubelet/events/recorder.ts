/**
 * Recorder: the kubelet's event recorder (client-go record.EventRecorder + its correlator), kept in memory.
 *
 * Identical emissions — same involved pod, fieldPath, type, reason and message — fold into one v1 Event
 * whose count grows and whose lastTimestamp moves, as `kubectl describe pod` shows them
 * ("3x over 40s"). Each emission also goes to the trace as `k8s.event` with the running count, so the
 * timeline shows every occurrence. Bounded: beyond `capacity` aggregates the least recently seen is dropped.
 *
 * Called from pod workers and the runtime manager; synchronous, never blocks, never throws.
 */
import type { Event, Pod } from '../../api/v1.ts';
import { rfc3339 } from '../../api/v1.ts';
import type { PassiveClock } from '../../clock/clock.ts';
import type { TraceRecorder } from '../../events/recorder.ts';
import type { EventRecorder, EventType } from './event-recorder.ts';

export const DEFAULT_EVENT_CAPACITY = 10_000;

export class Recorder implements EventRecorder {
  /** aggregation key → event; Map order = least recently updated first */
  private readonly events = new Map<string, Event>();
  private resourceVersion = 0;

  constructor(
    private readonly clock: PassiveClock,
    private readonly trace: TraceRecorder,
    private readonly nodeName: string,
    readonly capacity = DEFAULT_EVENT_CAPACITY,
  ) {}

  event(pod: Pod, type: EventType, reason: string, message: string, fieldPath?: string): void {
    const now = this.clock.now();
    const uid = pod.metadata.uid ?? '';
    const namespace = pod.metadata.namespace ?? 'default';
    const key = [uid, fieldPath ?? '', type, reason, message].join('\u0000');
    let ev = this.events.get(key);
    if (ev) {
      this.events.delete(key);
      ev.count++;
      ev.lastTimestamp = rfc3339(now);
    } else {
      ev = {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: {
          // client-go names events <object name>.<unix nanos in hex>
          name: `${pod.metadata.name}.${(BigInt(Math.round(now)) * 1_000_000n + BigInt(this.resourceVersion % 1_000_000)).toString(16)}`,
          namespace,
          creationTimestamp: rfc3339(now),
        },
        involvedObject: {
          kind: 'Pod',
          namespace,
          name: pod.metadata.name,
          uid,
          ...(fieldPath ? { fieldPath } : {}),
        },
        reason,
        message,
        type,
        count: 1,
        firstTimestamp: rfc3339(now),
        lastTimestamp: rfc3339(now),
        source: { component: 'kubelet', host: this.nodeName },
      };
    }
    ev.metadata.resourceVersion = String(++this.resourceVersion);
    this.events.set(key, ev);
    while (this.events.size > this.capacity) {
      const oldest = this.events.keys().next().value as string;
      this.events.delete(oldest);
    }
    this.trace.record({
      type: 'k8s.event',
      podUID: uid,
      pod: `${namespace}/${pod.metadata.name}`,
      eventType: type,
      reason,
      message,
      count: ev.count,
      ...(fieldPath ? { fieldPath } : {}),
    });
  }

  /** All aggregated events, least recently seen first (copies). */
  list(): Event[] {
    return [...this.events.values()].map(copyEvent);
  }

  /** The events of one pod, least recently seen first. */
  forPod(uid: string): Event[] {
    return this.list().filter((e) => e.involvedObject.uid === uid);
  }
}

function copyEvent(e: Event): Event {
  return {
    ...e,
    metadata: { ...e.metadata },
    involvedObject: { ...e.involvedObject },
    source: { ...e.source },
  };
}
