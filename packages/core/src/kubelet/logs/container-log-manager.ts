/**
 * ContainerLogManager (pkg/kubelet/logs/container_log_manager.go): rotates the log files of running
 * containers so that a chatty container cannot fill the disk.
 *
 * Every monitor period (containerLogMonitorInterval, 10 s) rotateLogs lists the runtime's containers and,
 * for each running one, looks at its log file (ContainerStatus' log_path):
 *
 *   log missing         → ReopenContainerLog (the runtime makes it again); nothing else this round
 *   size < maxSize      → nothing
 *   size ≥ maxSize      → rotateLog:
 *       1. `<log>.*` files: `.tmp` ones (a compression cut short) and plain ones whose `.gz` exists are removed
 *       2. oldest first (names sort by their timestamp), all but maxFiles - 2 rotated files are removed
 *          (the live log and the one about to be rotated make up the other two)
 *       3. every remaining uncompressed rotated file is gzipped to `<file>.tmp`, renamed `<file>.gz`, and
 *          removed
 *       4. the live log is renamed `<log>.<YYYYMMDD-hhmmss>` (the clock's time, UTC) and the runtime is asked
 *          to ReopenContainerLog; if it refuses, the rename is undone, to try again next round
 *
 * So at most maxFiles files per container: the live log, the newest rotated one uncompressed (a reader may
 * still be at its end) and maxFiles - 2 older ones as `.gz`. Only running containers are rotated: an exited
 * container writes nothing more. Unlike the kubelet, only containers carrying the ownership label are
 * touched (this engine never changes what it did not create).
 *
 * Time comes from the clock (the ticker and the rotated names), files from `os` (LogOS): tests pass a
 * FakeClock and drive rotateLogs() by hand. Errors of one container are reported through `onError` and do
 * not stop the others, as the kubelet logs them and goes on.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { Clock, Timer } from '../../clock/clock.ts';
import type { RuntimeService } from '../../cri/types.ts';

const COMPRESS_SUFFIX = '.gz';
const TMP_SUFFIX = '.tmp';

/** LogRotatePolicy: rotate at maxSize bytes (negative: never), keep at most maxFiles files (> 1). */
export interface LogRotatePolicy {
  maxSize: number;
  maxFiles: number;
}

/** The file operations the manager makes (kubecontainer.OSInterface's part it uses). */
export interface LogOS {
  /** Rejects with code ENOENT when the file does not exist. */
  stat(path: string): Promise<{ size: number }>;
  readdir(dir: string): Promise<string[]>;
  rename(from: string, to: string): Promise<void>;
  remove(path: string): Promise<void>;
  /** Writes `src` gzipped to `dst` (created or truncated). */
  gzip(src: string, dst: string): Promise<void>;
}

const nodeLogOS: LogOS = {
  stat: (p) => stat(p),
  readdir: (d) => readdir(d),
  rename: (a, b) => rename(a, b),
  remove: (p) => rm(p),
  gzip: (src, dst) => pipeline(createReadStream(src), createGzip(), createWriteStream(dst, { mode: 0o600 })),
};

type LogRuntime = Pick<RuntimeService, 'listContainers' | 'containerStatus' | 'reopenContainerLog'>;

export interface ContainerLogManagerDeps {
  runtime: LogRuntime;
  clock: Clock;
  policy: LogRotatePolicy;
  /** containerLogMonitorInterval. */
  monitorIntervalMs: number;
  /** Only containers with this label set to "true" are rotated; absent: all. */
  ownershipLabel?: string;
  os?: LogOS;
  /** One failure, in the kubelet's words ("Failed to rotate log for container" …). */
  onError?: (message: string, err: unknown) => void;
}

/** NewContainerLogManager's checks: maxFiles must be > 1. */
function checkPolicy(policy: LogRotatePolicy): string | undefined {
  if (!Number.isInteger(policy.maxFiles) || policy.maxFiles <= 1)
    return `invalid MaxFiles ${policy.maxFiles}, must be > 1`;
  if (!Number.isSafeInteger(policy.maxSize)) return `invalid max log size ${policy.maxSize}`;
  return undefined;
}

/** A rotated file's suffix, Go's timestampFormat "20060102-150405": `YYYYMMDD-hhmmss` of ms since the epoch, UTC. */
export function rotationTimestamp(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2026-11-27T15:22:33.123Z
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}-${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}`;
}

/** isInUse: temporary files never are; compressed ones always; a plain file is unless its `.gz` exists. */
function isInUse(l: string, logs: readonly string[]): boolean {
  if (l.endsWith(TMP_SUFFIX)) return false;
  if (l.endsWith(COMPRESS_SUFFIX)) return true;
  return !logs.includes(l + COMPRESS_SUFFIX);
}

function filterUnusedLogs(logs: readonly string[]): { inuse: string[]; unused: string[] } {
  const inuse: string[] = [];
  const unused: string[] = [];
  for (const l of logs) (isInUse(l, logs) ? inuse : unused).push(l);
  return { inuse, unused };
}

/** The rotated files of `log` (`<log>.*`), by full path. */
async function rotatedFiles(os: LogOS, log: string): Promise<string[]> {
  const dir = dirname(log);
  const prefix = `${basename(log)}.`;
  const names = await os.readdir(dir);
  return names.filter((n) => n.startsWith(prefix)).map((n) => join(dir, n));
}

/** GetAllLogs: every log file of a container in use, oldest first, the live one last. */
export async function getAllLogs(log: string, os: LogOS = nodeLogOS): Promise<string[]> {
  const { inuse } = filterUnusedLogs(await rotatedFiles(os, log));
  return [...inuse.sort(), log];
}

const isNotExist = (e: unknown) => (e as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';

export class ContainerLogManager {
  private readonly os: LogOS;
  private timer: Timer | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly deps: ContainerLogManagerDeps) {
    const bad = checkPolicy(deps.policy);
    if (bad) throw new Error(bad);
    this.os = deps.os ?? nodeLogOS;
  }

  /** Start: rotateLogs every monitor period (a round still running when the next is due is not doubled). */
  start(): void {
    if (this.timer || this.deps.policy.maxSize < 0) return;
    this.timer = this.deps.clock.setTicker(this.deps.monitorIntervalMs, () => {
      this.running ??= this.rotateLogs().finally(() => {
        this.running = undefined;
      });
    });
  }

  /** Stops the ticker and waits for a round in flight. */
  async stop(): Promise<void> {
    this.timer?.stop();
    this.timer = undefined;
    await this.running;
  }

  /** One round: every running container's log, one after the other (containerLogMaxWorkers 1). */
  async rotateLogs(): Promise<void> {
    let containers: Awaited<ReturnType<LogRuntime['listContainers']>>;
    try {
      containers = await this.deps.runtime.listContainers({});
    } catch (e) {
      this.error('Failed to rotate container logs: failed to list containers', e);
      return;
    }
    const label = this.deps.ownershipLabel;
    for (const c of containers) {
      if (c.state !== 'CONTAINER_RUNNING') continue;
      if (label && c.labels?.[label] !== 'true') continue;
      await this.processContainer(c.id);
    }
  }

  /** processContainer: rotate one container's log if it has reached maxSize. */
  async processContainer(id: string): Promise<void> {
    const { runtime, policy } = this.deps;
    let path: string;
    try {
      path = (await runtime.containerStatus(id)).status?.log_path ?? '';
    } catch (e) {
      this.error(`Failed to get container status containerID=${id}`, e);
      return;
    }
    if (!path) return;
    let size: number;
    try {
      size = (await this.os.stat(path)).size;
    } catch (e) {
      if (!isNotExist(e)) {
        this.error(`Failed to stat container log containerID=${id} path=${path}`, e);
        return;
      }
      try {
        await this.reopen(id);
        size = (await this.os.stat(path)).size;
      } catch (e2) {
        this.error(
          `Container log doesn't exist, reopen container log failed containerID=${id} path=${path}`,
          e2,
        );
        return;
      }
    }
    if (size < policy.maxSize) return;
    try {
      await this.rotateLog(id, path);
    } catch (e) {
      this.error(
        `Failed to rotate log for container containerID=${id} path=${path} currentSize=${size} maxSize=${policy.maxSize}`,
        e,
      );
    }
  }

  /** Clean: removes every log file of the container (the live one and the rotated ones). */
  async clean(containerId: string): Promise<void> {
    const path = (await this.deps.runtime.containerStatus(containerId)).status?.log_path ?? '';
    if (!path) return;
    for (const l of [path, ...(await rotatedFiles(this.os, path))]) {
      await this.os.remove(l).catch((e: unknown) => {
        if (!isNotExist(e)) throw e;
      });
    }
  }

  private async rotateLog(id: string, log: string): Promise<void> {
    let logs = await rotatedFiles(this.os, log);
    logs = await this.cleanupUnusedLogs(logs);
    logs = await this.removeExcessLogs(logs);
    for (const l of logs) {
      if (l.endsWith(COMPRESS_SUFFIX)) continue;
      await this.compressLog(l);
    }
    await this.rotateLatestLog(id, log);
  }

  private async cleanupUnusedLogs(logs: string[]): Promise<string[]> {
    const { inuse, unused } = filterUnusedLogs(logs);
    for (const l of unused) await this.os.remove(l);
    return inuse;
  }

  /** Keeps maxFiles - 2 rotated files, removing the oldest first (so a reader of the newer ones goes on). */
  private async removeExcessLogs(logs: string[]): Promise<string[]> {
    const sorted = [...logs].sort();
    const keep = Math.max(0, this.deps.policy.maxFiles - 2);
    const excess = sorted.length - keep;
    for (let i = 0; i < excess; i++) await this.os.remove(sorted[i] as string);
    return sorted.slice(Math.max(0, excess));
  }

  private async compressLog(log: string): Promise<void> {
    const tmp = log + TMP_SUFFIX;
    try {
      await this.os.gzip(log, tmp);
      await this.os.rename(tmp, log + COMPRESS_SUFFIX);
    } finally {
      await this.os.remove(tmp).catch(() => {});
    }
    await this.os.remove(log);
  }

  /** Renames the live log to `<log>.<timestamp>` and has the runtime reopen it; undone if it cannot. */
  private async rotateLatestLog(id: string, log: string): Promise<void> {
    const rotated = `${log}.${rotationTimestamp(this.deps.clock.now())}`;
    await this.os.rename(log, rotated);
    try {
      await this.reopen(id);
    } catch (e) {
      await this.os.rename(rotated, log).catch((renameErr: unknown) => {
        this.error(
          `Failed to rename rotated log rotatedLog=${rotated} newLog=${log} containerID=${id}`,
          renameErr,
        );
      });
      throw new Error(
        `failed to reopen container log "${id}": ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  }

  private async reopen(id: string): Promise<void> {
    const { runtime } = this.deps;
    if (!runtime.reopenContainerLog) throw new Error('the runtime does not implement ReopenContainerLog');
    await runtime.reopenContainerLog(id);
  }

  private error(message: string, err: unknown): void {
    this.deps.onError?.(message, err);
  }
}
