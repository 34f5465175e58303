/**
 * A watch on the pod API read over a real socket (fetch): the WatchEvents as they arrive, one JSON object a
 * line, and a way to wait for one. `until` resolves with the first event (already received or to come) that
 * satisfies the predicate, or rejects after its deadline with what was received.
 */
import type { Pod } from '@syncscope/core/api';
import { jsonLines } from './json-lines.ts';

interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: Pod;
}

export interface WatchStream {
  status: number;
  contentType: string | null;
  events: WatchEvent[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  until(what: string, pred: (e: WatchEvent) => boolean, ms?: number): Promise<WatchEvent>;
  close(): void;
}

export async function openWatch(url: string, headers: Record<string, string> = {}): Promise<WatchStream> {
  const abort = new AbortController();
  const res = await fetch(url, { signal: abort.signal, headers });
  const events: WatchEvent[] = [];
  const waiters = new Set<() => void>();
  let done = false;
  const ended = (async () => {
    if (!res.body) return;
    try {
      for await (const batch of jsonLines<WatchEvent>(res.body)) {
        events.push(...batch);
        for (const w of [...waiters]) w();
      }
    } catch {
      // aborted by close()
    } finally {
      done = true;
      for (const w of [...waiters]) w();
    }
  })();
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    events,
    ended,
    until(what, pred, ms = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = events.find(pred);
          if (hit) {
            finish();
            resolve(hit);
          } else if (done) {
            finish();
            reject(new Error(`watch ended before ${what}; got ${summary(events)}`));
          }
        };
        const timer = setTimeout(() => {
          finish();
          reject(new Error(`timed out waiting for ${what}; got ${summary(events)}`));
        }, ms);
        const finish = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    close: () => abort.abort(),
  };
}

function summary(events: WatchEvent[]): string {
  return events
    .map((e) => `${e.type} ${e.object.metadata.name ?? ''}@${e.object.metadata.resourceVersion ?? ''}`)
    .join(', ');
}
