/**
 * <data-dir>/kubelet.log: the engine's trace written as a kubelet's klog file (@syncscope/core/klog), so the
 * same tools read it as a real node's log (`pnpm -s import-log`, grep, the dashboard's "Open kubelet log…").
 *
 * Who calls it: buildApp subscribes `listener` to the TraceRecorder and calls close() on shutdown. The
 * listener runs inside record(): it only formats and queues, never waits. Writes are asynchronous, one at
 * a time, each a batch of what queued meanwhile. The queue is bounded (maxQueueBytes): lines that arrive
 * while it is full are dropped and counted (`dropped`), never blocking the loop. Rotation by size, as the
 * kubelet's log files are rotated: when the next batch would take kubelet.log past maxBytes, kubelet.log.N-1
 * is removed, each kubelet.log.k moves to .k+1 and kubelet.log to .1, and a new kubelet.log begins; at most
 * maxFiles files in all. A restart appends to the kubelet.log it finds.
 */
import { type FileHandle, open, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { kubeletLogLines } from '@syncscope/core/klog';
import type { TraceEvent } from '@syncscope/core/trace';
import { setAsideIfNotPlain } from './store/plain-file.ts';

const KUBELET_LOG_FILE = 'kubelet.log';

export interface KubeletLogFileOptions {
  dir: string;
  /** the kubelet's -v (default 2) */
  v?: number;
  /** the thread id in each header (default: this process's pid) */
  pid?: number;
  /** size at which kubelet.log is rotated (default 10 MiB) */
  maxBytes?: number;
  /** files kept, kubelet.log included (default 5) */
  maxFiles?: number;
  /** what may wait in memory for the disk (default 4 MiB); beyond it lines are dropped */
  maxQueueBytes?: number;
  warn?: (msg: string) => void;
}

export class KubeletLogFile {
  readonly path: string;
  readonly v: number;
  /** lines written to disk, lines dropped (queue full or a failed write), rotations done */
  written = 0;
  dropped = 0;
  rotations = 0;
  private readonly pid: number;
  private readonly maxBytes: number;
  private readonly maxFiles: number;
  private readonly maxQueueBytes: number;
  private readonly warn: (msg: string) => void;
  private queue: string[] = [];
  private queuedBytes = 0;
  private fh: FileHandle | undefined;
  private size = 0;
  private running: Promise<void> | undefined;
  private closed = false;
  private warned = false;

  constructor(opts: KubeletLogFileOptions) {
    this.path = join(opts.dir, KUBELET_LOG_FILE);
    this.v = opts.v ?? 2;
    this.pid = opts.pid ?? process.pid;
    this.maxBytes = opts.maxBytes ?? 10 * 1024 * 1024;
    this.maxFiles = Math.max(1, opts.maxFiles ?? 5);
    this.maxQueueBytes = opts.maxQueueBytes ?? 4 * 1024 * 1024;
    this.warn = opts.warn ?? ((msg) => console.warn(msg));
  }

  /** The trace listener: formats the event and queues its lines. Never throws, never waits. */
  readonly listener = (ev: TraceEvent): void => {
    if (this.closed) return;
    const lines = kubeletLogLines(ev, { v: this.v, pid: this.pid });
    if (lines.length > 0) this.append(lines);
  };

  /** Queues lines (without their newline) for the file. */
  append(lines: readonly string[]): void {
    for (const line of lines) {
      const bytes = line.length + 1;
      if (this.queuedBytes + bytes > this.maxQueueBytes) {
        this.dropped++;
        continue;
      }
      this.queue.push(line);
      this.queuedBytes += bytes;
    }
    this.running ??= this.drain();
  }

  /** Resolves once everything queued before the call is on disk (or dropped). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Stops taking lines, writes what is queued and closes the file. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
    await this.fh?.close().catch(() => undefined);
    this.fh = undefined;
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        this.queuedBytes = 0;
        const text = `${batch.join('\n')}\n`;
        const bytes = Buffer.byteLength(text);
        try {
          await this.ensureOpen();
          if (this.size > 0 && this.size + bytes > this.maxBytes) await this.rotate();
          await (this.fh as FileHandle).write(text);
          this.size += bytes;
          this.written += batch.length;
        } catch (e) {
          this.dropped += batch.length;
          if (!this.warned) this.warn(`kubelet.log: ${(e as Error).message} (lines dropped)`);
          this.warned = true;
          await this.fh?.close().catch(() => undefined);
          this.fh = undefined;
        }
      }
    } finally {
      this.running = undefined;
    }
  }

  private async ensureOpen(): Promise<void> {
    if (this.fh) return;
    setAsideIfNotPlain(this.path, 'kubelet.log:', this.warn); // a FIFO would hold a pool thread for ever
    this.fh = await open(this.path, 'a', 0o600);
    this.size = (await stat(this.path)).size;
  }

  private async rotate(): Promise<void> {
    await this.fh?.close();
    this.fh = undefined;
    const n = this.maxFiles - 1;
    if (n === 0) await rm(this.path, { force: true });
    else {
      await rm(`${this.path}.${n}`, { force: true });
      for (let k = n - 1; k >= 1; k--)
        await rename(`${this.path}.${k}`, `${this.path}.${k + 1}`).catch(() => undefined);
      await rename(this.path, `${this.path}.1`);
    }
    this.rotations++;
    await this.ensureOpen();
  }
}
