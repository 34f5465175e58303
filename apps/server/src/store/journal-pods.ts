/**
 * A cross-check at start between the trace journal and the pod store: the journal's newest events say which
 * pods the last run had, and if the store beside it is missing or empty those pods are about to be lost
 * without a word. openTrace calls checkPodStore once, before the store is opened (which would create its
 * directory); it only warns, the server starts either way.
 *
 * Which pods the last run had: every run records a `server.start`, then a `config.update` ADD for each pod
 * it restores, then ADD/UPDATE/DELETE/REMOVE as pods come and go. So from the last `server.start` in the
 * events given (the tail preloaded at boot), a pod ADDed and not REMOVEd was still wanted. When the tail does
 * not reach back to that `server.start`, the pods it shows added and not removed are a lower bound.
 */
import { readdirSync } from 'node:fs';
import type { TraceEvent } from '@syncscope/core/trace';

/** Pods ("namespace/name") added since the last server.start in events (oldest first) and not removed. */
function podsLeftByJournal(events: readonly TraceEvent[]): string[] {
  let from = 0;
  for (let i = events.length - 1; i >= 0; i--) {
    if ((events[i] as TraceEvent).type === 'server.start') {
      from = i;
      break;
    }
  }
  const pods = new Map<string, string>();
  for (const ev of events.slice(from)) {
    if (ev.type !== 'config.update') continue;
    if (ev.op === 'REMOVE') pods.delete(ev.podUID);
    else pods.set(ev.podUID, ev.pod);
  }
  return [...pods.values()];
}

/** Files that hold a stored pod (pod-store.ts: `<uid>.json`), or undefined when the directory is missing. */
function storedPodFiles(storeDir: string): number | undefined {
  try {
    return readdirSync(storeDir).filter((n) => n.endsWith('.json')).length;
  } catch {
    return undefined;
  }
}

/** Warns, in one line naming both paths, when the journal had pods and the store beside it has none. */
export function checkPodStore(
  storeDir: string,
  traceDir: string,
  events: readonly TraceEvent[],
  warn: (msg: string) => void,
): void {
  const stored = storedPodFiles(storeDir);
  if (stored !== undefined && stored > 0) return;
  const pods = podsLeftByJournal(events);
  if (pods.length === 0) return;
  const shown = pods.slice(0, 5).join(', ') + (pods.length > 5 ? ', ...' : '');
  warn(
    `pod store: ${storeDir} ${stored === undefined ? 'is missing' : 'holds no pods'}, but the trace journal ` +
      `${traceDir} shows ${pods.length} pod${pods.length === 1 ? '' : 's'} never removed (${shown}); ` +
      'they are not restored',
  );
}
