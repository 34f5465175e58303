/**
 * The node's newest events, on demand: nothing is fetched until "Show the newest events" is pressed; then
 * the newest TAIL_PAGE events (newest first), "Older" for the page before (up to MAX_TAIL in all) and
 * "Newest" to fetch the tail again. The live stream is never read, so the page costs nothing here while the
 * node runs. In a replay the same pages are cut from the replayed trace.
 */
import type { TraceEvent } from '@syncscope/core/trace';
import { useState } from 'react';
import { getTraceBounds, getTracePage } from '../api/client.ts';
import { describeEvent } from '../lib/explain.ts';
import type { ReplayStore } from '../lib/replay.ts';
import { appendOlder, olderPage, type PageRequest, TAIL_PAGE, tailPage } from '../lib/trace-tail.ts';
import { useReplay } from '../replay/context.ts';
import { clockText } from './liveness.ts';

interface Tail {
  events: TraceEvent[];
  /** the server's oldest seq when the tail was fetched */
  oldest: number | null;
}

/** A page of the replayed trace: the events with seq in (since, since + limit]. */
function replayPage(replay: ReplayStore, r: PageRequest): TraceEvent[] {
  return replay.trace.events.filter((ev) => ev.seq > r.since && ev.seq <= r.since + r.limit);
}

/** An event in a line: the node's own events (which a pod's steps never show) with their numbers. */
function tailWords(ev: TraceEvent): string {
  switch (ev.type) {
    case 'loop.iteration':
      return `loop iteration: ${ev.source}, ${ev.pods} pod(s), ${ev.durationMs} ms`;
    case 'loop.skipped':
      return `loop skipped, back-off ${ev.backoffMs} ms: ${ev.errors.join('; ')}`;
    case 'pleg.relist':
      return `PLEG relist: ${ev.events} event(s), ${ev.durationMs} ms`;
    case 'housekeeping':
      return `housekeeping: ${ev.durationMs} ms, forgot ${ev.forgotten}, killed ${ev.orphansKilled}, restarted ${ev.restarted}`;
    case 'sim.fault':
      return `fault ${ev.fault}: ${ev.detail}`;
    default:
      return describeEvent(ev);
  }
}

async function fetchRange(replay: ReplayStore | null, r: PageRequest): Promise<TraceEvent[]> {
  return replay ? replayPage(replay, r) : (await getTracePage(r)).items;
}

async function fetchTail(replay: ReplayStore | null): Promise<Tail> {
  const events = replay?.trace.events;
  const bounds = events
    ? { oldest: events[0]?.seq ?? null, newest: events[events.length - 1]?.seq ?? 0 }
    : await getTraceBounds();
  const r = tailPage(bounds, TAIL_PAGE);
  return { events: r ? appendOlder([], await fetchRange(replay, r)) : [], oldest: bounds.oldest };
}

export function TraceTail() {
  const replay = useReplay();
  const [tail, setTail] = useState<Tail | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const run = (work: () => Promise<Tail>) => {
    setBusy(true);
    setError(null);
    work()
      .then(setTail, (e: Error) => setError(`could not fetch the events: ${e.message}`))
      .finally(() => setBusy(false));
  };
  const newest = () => run(() => fetchTail(replay));
  const last = tail?.events[tail.events.length - 1];
  const older = tail && last ? olderPage(last.seq, tail.oldest, tail.events.length) : null;
  const more = () =>
    run(async () => {
      if (!tail || !older) return tail ?? { events: [], oldest: null };
      return { ...tail, events: appendOlder(tail.events, await fetchRange(replay, older)) };
    });

  if (!tail)
    return (
      <div className="trace-tail">
        <button type="button" onClick={newest} disabled={busy} data-testid="tail-open">
          Show the newest events
        </button>
        {error && <div className="bad">{error}</div>}
      </div>
    );
  return (
    <div className="trace-tail" data-testid="trace-tail">
      <div className="toolbar">
        <button type="button" onClick={newest} disabled={busy} data-testid="tail-newest">
          Newest
        </button>
        <button type="button" onClick={more} disabled={busy || !older} data-testid="tail-older">
          Older
        </button>
        <button type="button" onClick={() => setTail(null)} data-testid="tail-hide">
          Hide
        </button>
        <span className="sub" data-testid="tail-count">
          {tail.events.length} event(s), newest first
        </span>
      </div>
      {error && <div className="bad">{error}</div>}
      {/* scrolled inside the panel: focusable, so the keyboard scrolls it too */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus to be scrolled by keys */}
      <ol className="tail-list mono" tabIndex={0} aria-label="the newest events, newest first">
        {tail.events.map((ev) => (
          <li key={ev.seq} data-seq={ev.seq}>
            <span className="sub">{clockText(ev.time)}</span> <span className="dim">#{ev.seq}</span>{' '}
            {'pod' in ev ? <b>{ev.pod}</b> : null} {tailWords(ev)}
          </li>
        ))}
      </ol>
    </div>
  );
}
