/**
 * What a kubelet-log follower is given and what it reports (log-follow.ts follows a file, journal-follow.ts the
 * journal; both take and return these).
 */
import type { Clock } from '@syncscope/core/clock';
import type { TraceEvent } from '@syncscope/core/trace';
import type { FeedStats } from './log-feed.ts';

export interface JournalOptions {
  /** default `journalctl` (found on PATH) */
  command?: string;
  /** default `-u kubelet -f -o short-precise` */
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** restart delay after journalctl ends: `initialMs` (1 s) doubling to `maxMs` (30 s) */
  backoff?: { initialMs?: number; maxMs?: number };
}

export interface LogFollowerOptions {
  /** a kubelet log file to follow (exclusive with `journal`) */
  file?: string;
  /** follow the kubelet's unit in the journal through journalctl */
  journal?: boolean | JournalOptions;
  /** read what the file (or the journal) already holds first; default: only what is written from now on */
  fromStart?: boolean;
  onEvents(events: TraceEvent[]): void;
  /** what went wrong or changed (file missing, rotated, truncated, journalctl ended), for the server's log */
  warn(message: string): void;
  clock?: Clock;
  /** header year and zone (default: the current year, this machine's zone) */
  year?: number;
  tz?: string;
  /** longest line kept (default 1 MiB); longer ones are skipped and counted */
  maxLineBytes?: number;
  pollMs?: number;
  watch?: boolean;
  /** the last entry is let out once the input has been quiet this long (default 200 ms) */
  quietMs?: number;
}

export type FollowState = 'waiting' | 'following' | 'restarting' | 'failed' | 'stopped';

export interface FollowStats extends FeedStats {
  source: string;
  state: FollowState;
  /** file: times the name moved to a new file; journal: times journalctl was started again */
  rotations: number;
  truncations: number;
  restarts: number;
}

export interface LogFollower {
  stop(): Promise<void>;
  stats(): FollowStats;
}
