/**
 * Test support for the log followers (log-follow.int.test.ts, journal-follow.int.test.ts): kubelet lines that the
 * parser turns into one event each, and a sink that resolves waits when the events or warnings arrive.
 */
import type { TraceEvent } from '@syncscope/core/trace';
import { until } from '../../../../test/support/until.ts';

/** A kubelet's "Killing container with a grace period" line (klog, structured) for pod default/web-<n>. */
export function killLine(n: number, second = n): string {
  const s = String(second % 60).padStart(2, '0');
  return (
    `I1123 10:00:${s}.000001    1234 kuberuntime_container.go:600] "Killing container with a grace period" ` +
    `pod="default/web-${n}" podUID="uid-${n}" containerName="app" containerID="containerd://c${n}" gracePeriod=30`
  );
}

/** The same message as journalctl -o short-precise shows it. */
export function journalLine(n: number): string {
  const s = String(n % 60).padStart(2, '0');
  return `Nov 23 10:00:${s}.000002 node-a kubelet[1234]: ${killLine(n)}`;
}

export interface Kill {
  pod: string;
  gracePeriodS: number;
  time: number;
  line: number;
}

export class Sink {
  readonly events: TraceEvent[] = [];
  readonly warnings: string[] = [];
  private waiters: { ok: () => boolean; done: () => void }[] = [];

  onEvents = (evs: TraceEvent[]): void => {
    this.events.push(...evs);
    this.check();
  };

  warn = (m: string): void => {
    this.warnings.push(m);
    this.check();
  };

  kills(): Kill[] {
    return this.events.flatMap((e) =>
      e.type === 'runtime.call' && e.method === 'StopContainer'
        ? [
            {
              pod: (e as { pod?: string }).pod ?? '',
              gracePeriodS: (e as { gracePeriodS?: number }).gracePeriodS ?? -1,
              time: e.time,
              line: e.origin?.line ?? 0,
            },
          ]
        : [],
    );
  }

  pods(): string[] {
    return this.kills().map((k) => k.pod);
  }

  /** Resolves when `ok()` holds (checked at each batch of events or warning); fails after `ms`. */
  until(ok: () => boolean, what: string, ms = 10_000): Promise<void> {
    if (ok()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => {
        reject(new Error(`timed out waiting for ${what}; pods seen: ${this.pods().join(', ')}`));
      }, ms);
      this.waiters.push({
        ok,
        done: () => {
          clearTimeout(t);
          resolve();
        },
      });
    });
  }

  /** Resolves when the kill lines of these pods numbers have arrived. */
  untilPods(...n: number[]): Promise<void> {
    return this.until(() => n.every((i) => this.pods().includes(`default/web-${i}`)), `web-${n.join(',')}`);
  }

  private check(): void {
    this.waiters = this.waiters.filter((w) => {
      if (!w.ok()) return true;
      w.done();
      return false;
    });
  }
}

/** Asks `ok` every 10 ms until it holds (until.ts); fails after `ms` (for state that has no event: bytes read so far). */
export async function poll(ok: () => boolean, what: string, ms = 10_000): Promise<void> {
  await until(what, ok, ms, 10);
}
