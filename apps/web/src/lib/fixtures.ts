/**
 * Small builders of trace events and pods for the lib tests: a seq counter and defaults, so each test
 * spells out only the fields it is about.
 */
import type { ContainerStatus, Pod, PodStatus } from '@syncscope/core/api';
import type { TraceEvent, TracePayload } from '@syncscope/core/trace';

export const T0 = Date.parse('2025-01-10T12:00:00Z');
const POD_UID = 'uid-web';
export const POD_REF = { podUID: POD_UID, pod: 'default/web' };

/** Returns a builder that stamps payloads with increasing seq; `at` is seconds after T0. */
export function traceBuilder(firstSeq = 1) {
  let seq = firstSeq;
  return (at: number, payload: TracePayload): TraceEvent => ({
    ...payload,
    seq: seq++,
    time: T0 + at * 1000,
  });
}

export function containerStatus(name: string, fields: Partial<ContainerStatus>): ContainerStatus {
  return {
    name,
    state: {},
    lastState: {},
    ready: false,
    restartCount: 0,
    image: 'busybox',
    imageID: '',
    ...fields,
  };
}

export function pod(name: string, uid: string, status?: PodStatus): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid, creationTimestamp: new Date(T0).toISOString() },
    spec: { containers: [{ name: 'app', image: 'busybox' }] },
    ...(status ? { status } : {}),
  };
}
