/**
 * The journal follower with a fake `journalctl` first on PATH (a shell script, a real child process): its lines
 * are read, it is started again after it exits and asked only for lines since the last one it gave (repeats
 * skipped), stop() ends it; a PATH without journalctl gives the clear message.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { journalLine, poll, Sink } from './follow-testing.ts';
import { JOURNALCTL_MISSING } from './journal-follow.ts';
import { type LogFollower, startLogFollower } from './log-follow.ts';

let dir: string;
let follower: LogFollower | undefined;
let sink: Sink;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'syncscope-journal-'));
  sink = new Sink();
});
afterEach(async () => {
  await follower?.stop();
  follower = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A journalctl that records its arguments, then on its first run prints lines 1 and 2 and exits 1; on its
 * second run prints 2 again (the second it was asked for) and 3, and exits 0; from the third on it stays up.
 */
function fakeJournalctl(): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  const script = [
    '#!/bin/sh',
    `state=${dir}/runs`,
    'n=$(cat "$state" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$state"',
    `echo "$*" >> ${dir}/args`,
    'if [ $n = 1 ]; then',
    `  printf '%s\\n%s\\n' '${journalLine(1)}' '${journalLine(2)}'`,
    '  echo "some complaint" >&2; exit 1',
    'elif [ $n = 2 ]; then',
    `  printf '%s\\n%s\\n' '${journalLine(2)}' '${journalLine(3)}'`,
    '  exit 0',
    'fi',
    'exec sleep 1000',
  ].join('\n');
  writeFileSync(join(bin, 'journalctl'), `${script}\n`);
  chmodSync(join(bin, 'journalctl'), 0o755);
  return bin;
}

function journal(path: string, initialMs = 100): LogFollower {
  follower = startLogFollower({
    journal: { env: { ...process.env, PATH: path }, backoff: { initialMs, maxMs: 30_000 } },
    onEvents: sink.onEvents,
    warn: sink.warn,
    year: 2025,
    tz: 'UTC',
    quietMs: 25,
  });
  return follower;
}

describe('following the kubelet journal through journalctl', () => {
  it('reads its lines, starts it again when it exits, asks only for new lines and skips repeats', async () => {
    const bin = fakeJournalctl();
    const f = journal(`${bin}:${process.env.PATH}`);
    await sink.untilPods(1, 2, 3);
    // the third run stays up: the follower is following again
    // (a file the child writes: polled, with a deadline)
    await poll(() => readFileSync(join(dir, 'args'), 'utf8').trim().split('\n').length === 3, 'a third run');
    expect(sink.pods()).toEqual(['default/web-1', 'default/web-2', 'default/web-3']);
    expect(sink.kills()[0]?.time).toBe(Date.UTC(2025, 10, 23, 10, 0, 1) + 0.001);
    const args = readFileSync(join(dir, 'args'), 'utf8').trim().split('\n');
    expect(args[0]).toBe('-u kubelet -f -o short-precise -n 0');
    expect(args[1]).toMatch(/^-u kubelet -f -o short-precise --since=@\d+$/);
    expect(f.stats().restarts).toBe(2);
    expect(sink.warnings).toContain('journalctl: some complaint');
    expect(sink.warnings).toContain('journalctl ended (code 1); starting it again in 0.1 s');
    // the back-off doubles from one restart to the next
    expect(sink.warnings).toContain('journalctl ended (code 0); starting it again in 0.2 s');
    await f.stop();
    expect(f.stats().state).toBe('stopped');
  });

  it('says plainly that journalctl is missing, and does not retry', async () => {
    const empty = join(dir, 'empty');
    mkdirSync(empty);
    const f = journal(empty);
    await sink.until(() => sink.warnings.includes(JOURNALCTL_MISSING), 'the missing-journalctl message');
    expect(JOURNALCTL_MISSING).toBe(
      "journalctl not found: --kubelet-journal needs systemd's journalctl; use --kubelet-log FILE",
    );
    expect(f.stats()).toMatchObject({ state: 'failed', restarts: 0 });
  });
});
