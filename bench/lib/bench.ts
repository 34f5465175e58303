/** What every benchmark module exports, and how run.ts talks to it across a process boundary. */
export interface BenchOptions {
  /** Tiny sizes: proves the benchmark still runs, measures nothing worth quoting. */
  smoke: boolean;
  /** containerd needs root; without it the containerd parts print as skipped. */
  root: boolean;
  /** Progress lines (stderr), so the table on stdout stays clean. */
  log(msg: string): void;
}

/** The child prints its rows as one line with this prefix; everything else it prints is progress. */
export const ROWS_PREFIX = '@@bench-rows ';
