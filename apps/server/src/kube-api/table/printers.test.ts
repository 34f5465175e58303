import type { Event, Pod } from '@syncscope/core/api';
import { describe, expect, it } from 'vitest';
import { NodeObject } from '../node-object.ts';
import { eventPrinter } from './events.ts';
import { nodePrinter } from './nodes.ts';
import { podPrinter } from './pods.ts';
import { tableRequested, toTable } from './table.ts';

const NOW = Date.parse('2026-01-01T12:05:00Z');

function pod(over: Partial<Pod> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', uid: 'u1', creationTimestamp: '2026-01-01T12:00:00Z' },
    spec: { containers: [{ name: 'app', image: 'busybox' }], nodeName: 'node-a' },
    ...over,
  };
}

describe('the pod printer', () => {
  it('has kubectl get pods columns, the wide ones at priority 1', () => {
    expect(podPrinter.columns.map((c) => [c.name, c.priority])).toEqual([
      ['Name', 0],
      ['Ready', 0],
      ['Status', 0],
      ['Restarts', 0],
      ['Age', 0],
      ['IP', 1],
      ['Node', 1],
      ['Nominated Node', 1],
      ['Readiness Gates', 1],
    ]);
  });

  it('prints a crash-looping pod, a completed one and an initialising one as kubectl does', () => {
    const crashing = pod({
      status: {
        phase: 'Running',
        podIP: '10.88.0.7',
        containerStatuses: [
          {
            name: 'app',
            image: 'busybox',
            imageID: '',
            ready: false,
            restartCount: 3,
            state: { waiting: { reason: 'CrashLoopBackOff' } },
            lastState: { terminated: { exitCode: 1, finishedAt: '2026-01-01T12:04:20Z' } },
          },
        ],
      },
    });
    expect(podPrinter.row(crashing, NOW).cells).toEqual([
      'web',
      '0/1',
      'CrashLoopBackOff',
      '3 (40s ago)',
      '5m',
      '10.88.0.7',
      'node-a',
      '<none>',
      '<none>',
    ]);
    const done = podPrinter.row(
      pod({
        status: {
          phase: 'Succeeded',
          containerStatuses: [
            {
              name: 'app',
              image: 'busybox',
              imageID: '',
              ready: false,
              restartCount: 0,
              state: { terminated: { exitCode: 0, reason: 'Completed' } },
              lastState: {},
            },
          ],
        },
      }),
      NOW,
    );
    expect(done.cells.slice(0, 3)).toEqual(['web', '0/1', 'Completed']);
    expect(done.conditions).toEqual([
      { type: 'Completed', status: 'True', message: 'The pod has completed successfully.' },
    ]);
    const init = pod({
      spec: {
        containers: [{ name: 'app', image: 'busybox' }],
        initContainers: [{ name: 'setup', image: 'busybox' }],
        readinessGates: [{ conditionType: 'example.com/ready' }],
      },
      status: {
        phase: 'Pending',
        initContainerStatuses: [
          {
            name: 'setup',
            image: 'busybox',
            imageID: '',
            ready: false,
            restartCount: 0,
            state: { running: { startedAt: '2026-01-01T12:04:00Z' } },
            lastState: {},
          },
        ],
      },
    });
    const cells = podPrinter.row(init, NOW).cells;
    expect(cells[2]).toBe('Init:0/1');
    expect(cells[5]).toBe('<none>');
    expect(cells[8]).toBe('0/1');
    const deleting = pod({
      metadata: { ...pod().metadata, deletionTimestamp: '2026-01-01T12:05:30Z' },
      status: { phase: 'Running' },
    });
    expect(podPrinter.row(deleting, NOW).cells[2]).toBe('Terminating');
  });
});

describe('the event printer', () => {
  it('folds repeats into "(xN over …)" and names the object kind/name', () => {
    const ev: Event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'web.1', namespace: 'default' },
      involvedObject: {
        kind: 'Pod',
        namespace: 'default',
        name: 'web',
        uid: 'u1',
        fieldPath: 'spec.containers{app}',
      },
      reason: 'BackOff',
      message: 'Back-off restarting failed container app ',
      type: 'Warning',
      count: 4,
      firstTimestamp: '2026-01-01T12:01:00Z',
      lastTimestamp: '2026-01-01T12:04:30Z',
      source: { component: 'kubelet', host: 'node-a' },
    };
    expect(eventPrinter.columns.filter((c) => c.priority === 0).map((c) => c.name)).toEqual([
      'Last Seen',
      'Type',
      'Reason',
      'Object',
      'Message',
    ]);
    expect(eventPrinter.row(ev, NOW).cells).toEqual([
      '30s (x4 over 4m)',
      'Warning',
      'BackOff',
      'pod/web',
      'spec.containers{app}',
      'kubelet, node-a',
      'Back-off restarting failed container app',
      '4m',
      4,
      'web.1',
    ]);
  });
});

describe('the node printer', () => {
  const machine = {
    cpu: '4',
    memoryKi: 8_000_000,
    ip: '192.0.2.9',
    kernel: '6.1.0',
    osImage: 'Debian GNU/Linux 12 (bookworm)',
    machineID: 'm1',
    bootID: 'b1',
    arch: 'amd64',
  };
  const info = (errors: string[]) => ({
    nodeName: 'node-a',
    runtime: {
      name: 'containerd',
      version: '1.6.20',
      apiVersion: 'v1',
      endpoint: '',
      ready: errors.length === 0,
      errors,
    },
    simulated: false,
    pleg: { mode: 'generic' as const, healthy: true, lastRelist: null, message: '' },
    sync: { lastIteration: null },
    configuration: { maxPods: 110 } as never,
    clock: { now: NOW, speed: 1 },
  });

  it('prints Ready or NotReady from the kubelet conditions, with the runtime version', () => {
    const node = new NodeObject(NOW - 3_600_000, machine);
    const ready = node.get(info([]), NOW, '5');
    expect(nodePrinter.row(ready, NOW).cells).toEqual([
      'node-a',
      'Ready',
      '<none>',
      '60m',
      'v1.32.10',
      '192.0.2.9',
      '<none>',
      'Debian GNU/Linux 12 (bookworm)',
      '6.1.0',
      'containerd://1.6.20',
    ]);
    const down = node.get(
      info([
        'container runtime is down',
        'PLEG is not healthy: pleg was last seen active 3m0s ago; threshold is 3m0s',
      ]),
      NOW + 1000,
      '6',
    );
    expect(nodePrinter.row(down, NOW).cells[1]).toBe('NotReady');
    const readyCond = down.status.conditions.find((c) => c.type === 'Ready');
    expect(readyCond).toMatchObject({
      status: 'False',
      reason: 'KubeletNotReady',
      message:
        '[container runtime is down, PLEG is not healthy: pleg was last seen active 3m0s ago; threshold is 3m0s]',
      lastTransitionTime: '2026-01-01T12:05:01Z',
    });
    expect(ready.status.capacity).toEqual({ cpu: '4', memory: '8000000Ki', pods: '110' });
    expect(ready.status.allocatable.memory).toBe('7897600Ki');
  });
});

describe('Table negotiation', () => {
  it('answers a Table only to an Accept that asks for one', () => {
    expect(
      tableRequested(
        'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
      ),
    ).toBe('v1');
    expect(tableRequested('application/json;as=Table;v=v1beta1;g=meta.k8s.io')).toBe('v1beta1');
    expect(tableRequested('application/json')).toBeUndefined();
    expect(tableRequested(undefined)).toBeUndefined();
    const t = toTable(podPrinter, [pod()], { version: 'v1', include: 'Metadata', now: NOW, metadata: {} });
    expect(t.rows[0]?.object).toMatchObject({
      kind: 'PartialObjectMetadata',
      apiVersion: 'meta.k8s.io/v1',
      metadata: { name: 'web' },
    });
  });
});
