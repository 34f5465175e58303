/**
 * The kubelet's journal, live: runs `journalctl -u kubelet -f -o short-precise` as a child process and feeds its
 * stdout to the kubelet-log parser (log-feed.ts). Started by startLogFollower (log-follow.ts) for
 * `--kubelet-journal`.
 *
 * The first run asks for no old lines (`-n 0`; with `fromStart`, for the whole journal: `--no-tail`). When
 * journalctl ends, it is started again after a back-off (1 s, doubling to 30 s; back to 1 s once a run lasted
 * longer than the longest delay) and asked for the lines since the second before the last line it gave
 * (`--since=@<epoch s>`); the lines of that second it already gave are skipped. journalctl missing from PATH
 * (ENOENT) is not retried: the follower says so through `warn` and its state is `failed`.
 * journalctl's stderr goes to `warn`, a line at a time (the first 4 KiB of each run). stop() ends the child
 * (SIGTERM) and resolves once it is gone.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { RealClock, type Timer } from '@syncscope/core/clock';
import type {
  FollowState,
  FollowStats,
  JournalOptions,
  LogFollower,
  LogFollowerOptions,
} from './follow-types.ts';
import { LogFeed } from './log-feed.ts';

export const JOURNALCTL_MISSING =
  "journalctl not found: --kubelet-journal needs systemd's journalctl; use --kubelet-log FILE";
const DEFAULT_ARGS = ['-u', 'kubelet', '-f', '-o', 'short-precise'];
const STDERR_BYTES = 4096;

export function startJournalFollower(o: LogFollowerOptions, j: JournalOptions): LogFollower {
  const clock = o.clock ?? new RealClock();
  const command = j.command ?? 'journalctl';
  const initialMs = j.backoff?.initialMs ?? 1_000;
  const maxMs = j.backoff?.maxMs ?? 30_000;
  const feed = new LogFeed({
    onEvents: o.onEvents,
    remember: 500,
    ...(o.year !== undefined ? { year: o.year } : {}),
    ...(o.tz !== undefined ? { tz: o.tz } : {}),
    ...(o.maxLineBytes !== undefined ? { maxLineBytes: o.maxLineBytes } : {}),
  });
  let state: FollowState = 'restarting';
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let restartTimer: Timer | undefined;
  let quietTimer: Timer | undefined;
  let delay = initialMs;
  let restarts = 0;
  let runs = 0;
  /** wall time (s) of the last line journalctl gave */
  let lastLineS: number | undefined;
  let stopped = false;

  const run = (): void => {
    const args = [...(j.args ?? DEFAULT_ARGS)];
    if (lastLineS !== undefined) {
      args.push(`--since=@${lastLineS - 1}`);
      feed.skipRepeats();
    } else if (runs > 0) args.push(`--since=@${Math.floor(startedS) - 1}`);
    else args.push(...(o.fromStart ? ['--no-tail'] : ['-n', '0']));
    runs++;
    const began = clock.now();
    const p = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(j.env ? { env: j.env } : {}) });
    child = p;
    let errBytes = 0;
    let errCarry = '';
    p.stdout?.on('data', (d: Buffer) => {
      state = 'following';
      lastLineS = Math.floor(Date.now() / 1000);
      feed.push(d);
      quietTimer?.stop();
      quietTimer = clock.setTimer(o.quietMs ?? 200, () => feed.flush());
    });
    p.stderr?.on('data', (d: Buffer) => {
      if (errBytes >= STDERR_BYTES) return;
      errBytes += d.length;
      const lines = (errCarry + d.toString('utf8')).split('\n');
      errCarry = lines.pop() ?? '';
      for (const l of lines) if (l.trim() !== '') o.warn(`journalctl: ${l}`);
    });
    let spawnError: NodeJS.ErrnoException | undefined;
    p.on('error', (e: NodeJS.ErrnoException) => {
      spawnError = e;
    });
    exited = new Promise<void>((done) => {
      p.on('close', (code, signal) => {
        child = undefined;
        feed.endLine();
        feed.flush();
        done();
        if (stopped) return;
        if (spawnError?.code === 'ENOENT') {
          state = 'failed';
          o.warn(JOURNALCTL_MISSING);
          return;
        }
        if (clock.since(began) > maxMs) delay = initialMs;
        const why = spawnError ? spawnError.message : signal ? `signal ${signal}` : `code ${code}`;
        o.warn(`journalctl ended (${why}); starting it again in ${delay / 1000} s`);
        state = 'restarting';
        restartTimer = clock.setTimer(delay, () => {
          restarts++;
          if (!stopped) run();
        });
        delay = Math.min(delay * 2, maxMs);
      });
    });
  };

  const startedS = Date.now() / 1000;
  run();

  return {
    stats(): FollowStats {
      return {
        ...feed.stats(),
        source: `${command} ${(j.args ?? DEFAULT_ARGS).join(' ')}`,
        state,
        rotations: 0,
        truncations: 0,
        restarts,
      };
    },
    async stop(): Promise<void> {
      stopped = true;
      restartTimer?.stop();
      quietTimer?.stop();
      child?.kill('SIGTERM');
      await exited;
      feed.flush();
      state = 'stopped';
    },
  };
}
