import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { PassiveClock } from '../clock/clock.ts';

/**
 * Writes a container's stdout/stderr to its log file in the CRI format the kubelet reads:
 * `2026-11-21T05:02:40.371133928Z stdout F hello` — F for a full line, P for a partial one (output
 * that did not end in a newline yet). Timestamps come from the runtime's clock.
 *
 * Created by SimRuntime when a container starts (like containerd, the file only exists from then on).
 * Writes are synchronous appends, so once a program has written, the file holds the line.
 */
export class CriLogWriter {
  private closed = false;
  private lastNs = 0n;

  constructor(
    readonly path: string,
    private readonly clock: PassiveClock,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    appendFileSync(path, '');
  }

  write(stream: 'stdout' | 'stderr', chunk: string): void {
    if (this.closed || chunk === '') return;
    const parts = chunk.split('\n');
    const last = parts.pop() ?? '';
    let text = '';
    for (const line of parts) text += `${this.stamp()} ${stream} F ${line}\n`;
    if (last) text += `${this.stamp()} ${stream} P ${last}\n`;
    try {
      appendFileSync(this.path, text);
    } catch {
      // The log directory went away (pod removed under us): output is lost, as with a deleted file.
      this.closed = true;
    }
  }

  close(): void {
    this.closed = true;
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
