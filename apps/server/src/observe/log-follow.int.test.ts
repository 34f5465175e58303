/**
 * The file follower on real files written by the test: from the end and from the start, a file that appears
 * later, rotation (rename and create), truncation, a partial last line, a line over the limit.
 */
import { appendFileSync, mkdtempSync, renameSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { killLine, poll, Sink } from './follow-testing.ts';
import { type LogFollower, type LogFollowerOptions, startLogFollower } from './log-follow.ts';

let dir: string;
let follower: LogFollower | undefined;
let sink: Sink;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'syncscope-follow-'));
  sink = new Sink();
});
afterEach(async () => {
  await follower?.stop();
  follower = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function follow(file: string, more: Partial<LogFollowerOptions> = {}): LogFollower {
  follower = startLogFollower({
    file,
    onEvents: sink.onEvents,
    warn: sink.warn,
    year: 2025,
    tz: 'UTC',
    pollMs: 25,
    quietMs: 25,
    ...more,
  });
  return follower;
}

const add = (file: string, ...n: number[]) => appendFileSync(file, n.map((i) => `${killLine(i)}\n`).join(''));

/** An empty kubelet.log in `dir`, followed: resolves once the follower has it open. */
async function followEmptyFile(): Promise<{ file: string; f: LogFollower }> {
  const file = join(dir, 'kubelet.log');
  writeFileSync(file, '');
  const f = follow(file);
  await poll(() => f.stats().state === 'following', 'the file to be opened');
  return { file, f };
}

describe('following a kubelet log file', () => {
  it('starts at the end and reads each line as it is written, with the kubelet time', async () => {
    const file = join(dir, 'kubelet.log');
    add(file, 1, 2, 3);
    const f = follow(file);
    await poll(() => f.stats().state === 'following', 'the file to be opened');
    for (const n of [4, 5, 6]) {
      add(file, n);
      await sink.untilPods(n);
    }
    expect(sink.pods()).toEqual(['default/web-4', 'default/web-5', 'default/web-6']);
    const k = sink.kills()[0];
    expect(k?.gracePeriodS).toBe(30);
    expect(k?.time).toBe(Date.UTC(2025, 10, 23, 10, 0, 4) + 0.001);
    expect(f.stats()).toMatchObject({ state: 'following', rotations: 0, truncations: 0, tooLong: 0 });
  });

  it('reads what the file holds first when asked to start at the start', async () => {
    const file = join(dir, 'kubelet.log');
    add(file, 1, 2);
    follow(file, { fromStart: true });
    await sink.untilPods(1, 2);
    add(file, 3);
    await sink.untilPods(3);
    expect(sink.pods()).toEqual(['default/web-1', 'default/web-2', 'default/web-3']);
    expect(sink.kills().map((k) => k.line)).toEqual([1, 2, 3]);
  });

  it('waits for a file that does not exist yet and then reads it from its start', async () => {
    const file = join(dir, 'later', 'kubelet.log');
    const f = follow(file);
    await sink.until(() => sink.warnings.some((w) => w.includes('does not exist')), 'the warning');
    expect(f.stats().state).toBe('waiting');
    await import('node:fs').then((fs) => fs.mkdirSync(join(dir, 'later')));
    add(file, 1, 2);
    await sink.untilPods(1, 2);
    expect(sink.pods()).toEqual(['default/web-1', 'default/web-2']);
  });

  it('survives rotation: the rest of the old file first, then the new file from its start', async () => {
    const { file, f } = await followEmptyFile();
    add(file, 1);
    await sink.untilPods(1);
    // written and rotated with no poll in between: line 2 is only in the renamed file
    add(file, 2);
    renameSync(file, `${file}.1`);
    add(file, 3, 4);
    await sink.untilPods(2, 3, 4);
    add(file, 5);
    await sink.untilPods(5);
    expect(sink.pods()).toEqual([1, 2, 3, 4, 5].map((n) => `default/web-${n}`));
    expect(f.stats().rotations).toBe(1);
  });

  it('survives truncation: reads the file again from offset 0', async () => {
    const { file, f } = await followEmptyFile();
    add(file, 1, 2, 3);
    await sink.untilPods(1, 2, 3);
    truncateSync(file, 0);
    add(file, 4);
    await sink.untilPods(4);
    expect(sink.pods()).toEqual([1, 2, 3, 4].map((n) => `default/web-${n}`));
    expect(f.stats().truncations).toBe(1);
    expect(sink.warnings.some((w) => w.includes('truncated'))).toBe(true);
  });

  it('holds a partial last line until its newline arrives', async () => {
    const { file, f } = await followEmptyFile();
    const line = killLine(7);
    const head = line.slice(0, -1); // "...gracePeriod=3"
    appendFileSync(file, head);
    await poll(() => f.stats().bytes === head.length, 'the partial line to be read');
    appendFileSync(file, `${line.slice(-1)}\n`);
    await sink.untilPods(7);
    expect(sink.kills()).toEqual([
      expect.objectContaining({ pod: 'default/web-7', gracePeriodS: 30, line: 1 }),
    ]);
    expect(sink.events.filter((e) => e.type === 'log.raw')).toEqual([]);
  });

  it('skips and counts a 10 MB line, holding at most the line limit', async () => {
    const { file, f } = await followEmptyFile();
    add(file, 1);
    await sink.untilPods(1);
    const big = Buffer.alloc(10 * 2 ** 20, 'x');
    for (let i = 0; i < 10; i++) appendFileSync(file, big.subarray(i * 2 ** 20, (i + 1) * 2 ** 20));
    appendFileSync(file, '\n');
    add(file, 2);
    await sink.untilPods(2);
    expect(f.stats().tooLong).toBe(1);
    // the line after the long one keeps its place in the file
    expect(sink.kills().map((k) => k.line)).toEqual([1, 3]);
    expect(sink.events.every((e) => JSON.stringify(e).length < 10_000)).toBe(true);
  });

  it('refuses to start without exactly one source', () => {
    expect(() => startLogFollower({ onEvents: sink.onEvents, warn: sink.warn })).toThrow(
      /a file or the journal/,
    );
    expect(() =>
      startLogFollower({ file: join(dir, 'x'), journal: true, onEvents: sink.onEvents, warn: sink.warn }),
    ).toThrow(/a file or the journal/);
  });
});

describe('the command line', () => {
  it('refuses --kubelet-log with --kubelet-journal', async () => {
    const { spawnSync } = await import('node:child_process');
    const root = join(import.meta.dirname, '..', '..', '..', '..');
    const r = spawnSync(
      join(root, 'node_modules', '.bin', 'tsx'),
      [
        join(root, 'apps', 'server', 'src', 'main.ts'),
        '--kubelet-log',
        join(dir, 'k.log'),
        '--kubelet-journal',
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('--kubelet-log and --kubelet-journal exclude each other');
  }, 60_000);
});
