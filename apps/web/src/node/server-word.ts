/**
 * The server's word on the node's health: GET /api/v1/node's `health` (judged on the server, where the
 * loops run), polled once per HEARTBEAT_MS by the node page's health panel, the page's heartbeat. The other
 * panels read the same answer without polling again. An answer older than LATE_AFTER_MS means the page
 * (or the network) is behind, never that the kubelet is.
 */
import type { NodeHealth } from '@syncscope/core/api/node-health';
import type { NodeInfo } from '@syncscope/core/kubelet/configuration';
import { useQuery } from '@tanstack/react-query';
import { getNode } from '../api/client.ts';

const HEARTBEAT_MS = 1_000;
/** the word is late after two heartbeats without one */
export const LATE_AFTER_MS = 2 * HEARTBEAT_MS;

export interface ServerWord {
  health: NodeHealth;
  /** the same answer's runtime and PLEG verdict */
  runtime: NodeInfo['runtime'];
  pleg: NodeInfo['pleg'];
  /** the engine clock's speed (a sped-up simulated node) */
  speed: number;
  /** the page's wall ms when the answer arrived */
  receivedAt: number;
}

const key = ['node', 'health'] as const;
const select = (n: NodeInfo & { health?: NodeHealth }) => ({
  health: n.health,
  runtime: n.runtime,
  pleg: n.pleg,
  speed: n.clock.speed,
});

/**
 * The newest answer, or null before the first (or from a server that gives none). `poll` makes this caller
 * the one that asks, every HEARTBEAT_MS, also when the tab is in the background.
 */
export function useServerWord(poll = false): ServerWord | null {
  const q = useQuery({
    queryKey: key,
    queryFn: getNode as () => Promise<NodeInfo & { health?: NodeHealth }>,
    select,
    enabled: poll,
    refetchInterval: poll ? HEARTBEAT_MS : false,
    refetchIntervalInBackground: true,
    retry: false,
  });
  const d = q.data;
  if (!d?.health) return null;
  return { health: d.health, runtime: d.runtime, pleg: d.pleg, speed: d.speed, receivedAt: q.dataUpdatedAt };
}
