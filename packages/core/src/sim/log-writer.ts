import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { PassiveClock } from '../clock/clock.ts';

/**
 * Writes a container's stdout/stderr to its log file in the CRI format the kubelet reads:
 * `2026-11-21T05:02:40.371133928Z stdout F hello` — F for a full line, P for a partial one (output
 * that did not end in a newline yet). Timestamps come from the runtime's clock.
 *
 * Created by SimRuntime when a container starts (like containerd, the file only exists from then on).
 * Writes are synchronous appends, so once a program has written, the file holds the line. Like containerd's
 * logger, the writer holds the file open: once the kubelet has renamed it (log rotation), output goes on
 * into the renamed file until reopen() (CRI ReopenContainerLog) opens a new one at the path.
 */
export class CriLogWriter {
  private closed = false;
  private lastNs = 0n;
  private fd: number;

  constructor(
    readonly path: string,
    private readonly clock: PassiveClock,
  ) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.fd = openSync(path, 'a', 0o600);
  }

  /** ReopenContainerLog: a new file at the path (created if missing); the old one is closed. */
  reopen(): void {
    if (this.closed) return;
    const fd = openSync(this.path, 'a', 0o600);
    closeSync(this.fd);
    this.fd = fd;
  }

  write(stream: 'stdout' | 'stderr', chunk: string): void {
    if (this.closed || chunk === '') return;
    const parts = chunk.split('\n');
    const last = parts.pop() ?? '';
    let text = '';
    for (const line of parts) text += `${this.stamp()} ${stream} F ${line}\n`;
    if (last) text += `${this.stamp()} ${stream} P ${last}\n`;
    try {
      writeSync(this.fd, text);
    } catch {
      // The disk refused (full, gone): output is lost, as a runtime's logger drops it.
      this.close();
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      closeSync(this.fd);
    } catch {
      // already gone
    }
  }

  /** RFC 3339 with nanoseconds; strictly increasing per file, so lines keep their order when sorted. */
  private stamp(): string {
    const ms = this.clock.now();
    const whole = Math.floor(ms);
    let ns = BigInt(whole) * 1_000_000n + BigInt(Math.round((ms - whole) * 1e6));
    if (ns <= this.lastNs) ns = this.lastNs + 1n;
    this.lastNs = ns;
    return formatNs(ns);
  }
}

function formatNs(ns: bigint): string {
  const ms = Number(ns / 1_000_000n);
  const frac = (ns % 1_000_000_000n).toString().padStart(9, '0');
  return `${new Date(ms).toISOString().slice(0, 19)}.${frac}Z`;
}
