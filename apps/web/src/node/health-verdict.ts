/**
 * The node page's one health banner, decided from what the page knows, most telling first:
 *   stale       the stream is gone: nothing shown is current ("stale since hh:mm:ss · reconnecting…");
 *   connecting  no answer from the server yet;
 *   behind      the server's last word is late (no answer for LATE_AFTER_MS): the page or the network is
 *               behind, which says nothing of the kubelet;
 *   stalled     the server says a beat is stalled (judged where it runs), with the words for each;
 *   live        the server says its loops turn.
 * The page never calls a stall from when events reach it. Pure.
 */
import type { BeatName } from '@syncscope/core/api/node-health';
import { goDuration } from '../lib/explain.ts';
import { clockText, silentNow, stalledText, wordAgeMs } from './liveness.ts';
import { LATE_AFTER_MS, type ServerWord } from './server-word.ts';

export type HealthVerdict =
  | { state: 'stale'; text: string }
  | { state: 'connecting'; text: string }
  | { state: 'behind'; text: string }
  | { state: 'stalled'; lines: { name: BeatName | 'healthz'; text: string }[] }
  | { state: 'live'; text: string };

const NOUN: Record<BeatName, string> = { loop: 'sync loop', relist: 'PLEG', housekeeping: 'housekeeping' };

/** "3 ms" / "0.4 ms" */
function lagText(ms: number): string {
  return ms < 10 ? `${Math.round(ms * 10) / 10} ms` : `${Math.round(ms)} ms`;
}

export function healthVerdict(
  connection: { state: string; staleSince: number | null },
  word: ServerWord | null,
  wallNow: number,
): HealthVerdict {
  const { staleSince } = connection;
  if (staleSince !== null) {
    const how = connection.state === 'live' ? '' : ` · ${connection.state}…`;
    return {
      state: 'stale',
      text: `stale since ${clockText(staleSince)}${how}: the page shows what it knew then, not the kubelet's state now`,
    };
  }
  if (word === null) {
    return {
      state: 'connecting',
      text: connection.state === 'live' ? "waiting for the server's first word" : `${connection.state}…`,
    };
  }
  const age = wordAgeMs(word, wallNow, null);
  if (age > LATE_AFTER_MS) {
    return {
      state: 'behind',
      text: `the page is behind: no word from the server for ${Math.round(age / 1000)}s (last at ${clockText(word.receivedAt)}); what it says of the kubelet is from then`,
    };
  }
  const h = word.health;
  const lines: { name: BeatName | 'healthz'; text: string }[] = [];
  for (const name of ['loop', 'relist', 'housekeeping'] as const) {
    const beat = h.beats[name];
    if (!beat?.stalled || beat.last === null) continue;
    const silentMs = silentNow(beat, word, wallNow, null);
    const rule = name === 'relist' ? `; the PLEG's threshold is ${goDuration(beat.thresholdMs / 1000)}` : '';
    lines.push({
      name,
      text: `${NOUN[name]} stalled: ${stalledText(name, { last: beat.last, silentMs })}${rule}`,
    });
  }
  if (h.syncLoopHealthz && !h.syncLoopHealthz.ok) {
    lines.push({
      name: 'healthz',
      text: `the kubelet's /healthz: syncloop failed: ${h.syncLoopHealthz.message}`,
    });
  }
  if (lines.length > 0) return { state: 'stalled', lines };
  const seen = (['loop', 'relist', 'housekeeping'] as const).filter((n) => h.beats[n] !== null);
  const running =
    seen.length === 3 ? 'sync loop, PLEG and housekeeping' : seen.map((n) => NOUN[n]).join(', ');
  return {
    state: 'live',
    text: `${running} running, as the server says at ${clockText(h.atWall)} (its event loop lags ${lagText(h.eventLoop.p99Ms)} at p99)`,
  };
}
