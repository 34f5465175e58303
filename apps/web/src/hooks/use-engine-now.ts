/**
 * useEngineNow: the engine's clock now (ms), re-rendering the caller every `intervalMs` of wall time.
 * Estimated from the last GET /api/v1/node sample (engine time and speed), so AGE and "ago" strings follow
 * a sped-up simulated node; the wall clock until the first sample arrives. In a replay, the time of the
 * trace's last event, fixed.
 */
import { useEffect, useState } from 'react';
import { useNode } from '../api/queries.ts';
import { estimateEngineNow } from '../lib/stream.ts';
import { useReplay } from '../replay/context.ts';

export function useEngineNow(intervalMs = 1_000): number {
  const node = useNode();
  const replay = useReplay();
  const [wallNow, setWallNow] = useState(() => Date.now());
  useEffect(() => {
    const id = setInterval(() => setWallNow(Date.now()), intervalMs);
    return () => clearInterval(id);
  }, [intervalMs]);
  if (replay) return replay.now;
  return estimateEngineNow(node.data?.clock, node.dataUpdatedAt, wallNow);
}
