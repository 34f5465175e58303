/**
 * A log that interleaves two kubelets opens one node at a time: the busiest first, the same pod name on the
 * other node is another pod, and the replay's node is named after the host. Lines kept raw read as their text.
 */
import { importKubeletLog } from '@syncscope/core/kubelet-log';
import { describe, expect, it } from 'vitest';
import { describeEvent } from '../lib/explain.ts';
import { logReplay, NodeIndex } from './open.ts';

const line = (host: string, pid: number, t: string, msg: string) =>
  `Jun 01 10:00:${t} ${host} kubelet[${pid}]: I0601 10:00:${t}.000000 ${pid} kubelet.go:2421] ${msg}`;
const LOG = [
  line('a', 11, '01', '"SyncLoop ADD" source="api" pods=["shop/web-0"]'),
  line('b', 22, '01', '"SyncLoop ADD" source="api" pods=["shop/web-0"]'),
  line('a', 11, '02', '"SyncLoop ADD" source="api" pods=["shop/web-1"]'),
  line('a', 11, '03', '"Something no rule reads" pod="shop/web-0"'),
].join('\n');

describe('logReplay', () => {
  it('shows one node of several, busiest first, and switches', () => {
    const { events, summary } = importKubeletLog(LOG, { year: 2024 });
    expect(summary.nodes).toEqual(['a', 'b']);
    const lines = { read: async () => undefined };
    const a = logReplay('k.log', { summary, lines, all: events });
    expect(a.node.nodeName).toBe('a');
    expect(a.log?.node).toBe('a');
    expect(a.pods.items.map((p) => p.metadata.name)).toEqual(['web-0', 'web-1']);
    const b = logReplay('k.log', { summary, lines, all: events }, 'b');
    expect(b.pods.items.map((p) => p.metadata.name)).toEqual(['web-0']);
    expect(b.pods.items[0]?.metadata.uid).not.toBe(a.pods.items[0]?.metadata.uid);
    const raw = a.trace.events.find((e) => e.type === 'log.raw');
    expect(raw && describeEvent(raw)).toContain('Something no rule reads');
  });

  it('gives the same replay from events indexed one batch at a time as they arrive', () => {
    const { events, summary } = importKubeletLog(LOG, { year: 2024 });
    const lines = { read: async () => undefined };
    const index = new NodeIndex();
    for (const ev of events) index.add([ev]);
    const log = { summary, lines, all: index.events, byNode: index.byNode, facts: index.facts };
    for (const node of [undefined, 'a', 'b'] as const) {
      const indexed = logReplay('k.log', log, node);
      const whole = logReplay('k.log', { summary, lines, all: events }, node);
      expect(indexed.node.nodeName).toBe(whole.node.nodeName);
      expect(indexed.pods.items).toEqual(whole.pods.items);
      expect(indexed.node).toEqual(whole.node);
      expect(indexed.trace.events).toEqual(whole.trace.events);
    }
    expect(logReplay('k.log', log).node.nodeName).toBe('a');
  });
});
