/**
 * The replay switch: when an imported trace is being replayed, ReplayContext holds its store and every
 * query hook in api/queries.ts reads from it instead of the server (and the app opens no trace stream).
 * null means live. App.tsx provides it; views never read it directly, they keep using the hooks.
 */
import { createContext, useContext } from 'react';
import type { ReplayStore } from '../lib/replay.ts';

export const ReplayContext = createContext<ReplayStore | null>(null);

export function useReplay(): ReplayStore | null {
  return useContext(ReplayContext);
}
