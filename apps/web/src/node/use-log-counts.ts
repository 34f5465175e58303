/**
 * The pods table's DIFFERS column in a replayed kubelet log: each pod's explanation counts, worked out by
 * ../explain/log-counts.ts (core's explainer, the model beside the log). That code is asked for only when a
 * log is replayed, so the live node page's first load neither fetches nor parses it; until it has arrived
 * the table shows no DIFFERS column.
 */
import type { ExplainCounts } from '@syncscope/core/explain';
import { useEffect, useMemo, useState } from 'react';
import type { ReplayStore } from '../lib/replay.ts';

type LogCountsModule = typeof import('../explain/log-counts.ts');

/** What a row shows: the pod's count of differing steps (null: no step of it was read) and its title. */
export interface RowCounts {
  counts: ExplainCounts | null;
  title: string;
}

export type CountsOf = (uid: string) => RowCounts;

/** Once loaded, the module is kept: a second log opens with its column at once. */
let loaded: LogCountsModule | undefined;

/** Each pod's counts in the replayed log `replay.log`; null live, or while the explainer's code loads. */
export function useLogCounts(replay: ReplayStore | null): CountsOf | null {
  const log = replay?.log;
  const [mod, setMod] = useState<LogCountsModule | undefined>(loaded);
  useEffect(() => {
    if (!log || mod) return;
    let mounted = true;
    void import('../explain/log-counts.ts').then((m) => {
      loaded = m;
      if (mounted) setMod(m);
    });
    return () => {
      mounted = false;
    };
  }, [log, mod]);
  return useMemo(() => {
    if (!log || !mod) return null;
    const all = mod.logExplainCounts(log.all);
    // one value per pod, so a memoized row sees the same object on every render
    const rows = new Map<string, RowCounts>();
    return (uid) => {
      let row = rows.get(uid);
      if (!row) {
        const counts = mod.podCounts(all, log.node, uid) ?? null;
        row = { counts, title: counts ? mod.countsWords(counts) : 'no step of this pod was read' };
        rows.set(uid, row);
      }
      return row;
    };
  }, [log, mod]);
}
