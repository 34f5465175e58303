/**
 * One pod's back-off windows, per container, folded from `backoff` events. The kubelet repeats a window's
 * back-off at every sync while it lasts (the engine records each; a log may print it at each sync), so one
 * window is one (key, since) where since = until − delay, the container's death. The ladder keeps one rung per
 * window and starts over when a delay is shorter than the one before (the entry was reset after the
 * container ran 10 minutes, or expired), as kuberuntime's flowcontrol.Backoff does.
 */
import type { TraceOf } from '../events/trace.ts';
import type { Instance } from './containers.ts';
import type { BackoffRungState, BackoffState, Fact, Source } from './types.ts';

interface Track {
  kind: 'container' | 'image';
  container: string;
  key: string;
  rungs: BackoffRungState[];
  resets: number;
  /** the newest window's event (its first sighting) and the death that started it */
  from: Source;
  death?: BackoffState['death'];
  basis?: 'inferred' | 'confirmed';
  restarted?: { at: number; from: Source };
}

function sourceOf(ev: { seq: number; origin?: { line: number } }): Source {
  return ev.origin ? { seq: ev.seq, line: ev.origin.line } : { seq: ev.seq };
}

export class PodBackoffs {
  private readonly tracks = new Map<string, Track>();

  add(ev: TraceOf<'backoff'>, died: Instance | undefined): void {
    const trackKey = `${ev.kind}/${ev.container}`;
    let t = this.tracks.get(trackKey);
    const since = ev.until - ev.delayS * 1000;
    const last = t?.rungs[t.rungs.length - 1];
    if (t && last && last.since === since && last.delayS === ev.delayS) {
      // the same window again; an observer's confirmed window replaces its inferred one
      if (ev.confirmed) t.basis = 'confirmed';
      return;
    }
    const from = sourceOf(ev);
    const rung: BackoffRungState = { delayS: ev.delayS, since, until: ev.until, ...from };
    if (ev.exitCode !== undefined) rung.exitCode = ev.exitCode;
    if (!t || t.key !== ev.key) {
      const resets = t ? t.resets + t.rungs.length : 0;
      t = { kind: ev.kind, container: ev.container, key: ev.key, rungs: [], resets, from };
      this.tracks.set(trackKey, t);
    } else if (last && ev.delayS < last.delayS) {
      t.resets += t.rungs.length;
      t.rungs = [];
    }
    t.rungs.push(rung);
    t.from = from;
    t.restarted = undefined;
    t.basis = ev.confirmed ? 'confirmed' : ev.inferred ? 'inferred' : undefined;
    const d = died?.died;
    t.death =
      d && d.time <= ev.time
        ? { time: d.time, from: d.from, ...(d.exitCode !== undefined ? { exitCode: d.exitCode } : {}) }
        : undefined;
  }

  /** A start of `container` (by name): the open window, if any, ends in a restart. */
  started(container: string, at: number, from: Source): void {
    const t = this.tracks.get(`container/${container}`);
    if (t && !t.restarted) t.restarted = { at, from };
  }

  /** A successful pull (or start) of the image clears an image window. */
  imageDone(container: string, at: number, from: Source): void {
    const t = this.tracks.get(`image/${container}`);
    if (t && !t.restarted) t.restarted = { at, from };
  }

  /** The windows, newest first, as of `asOf` (the trace's end). */
  list(asOf: number): BackoffState[] {
    const out: BackoffState[] = [];
    for (const t of this.tracks.values()) {
      const cur = t.rungs[t.rungs.length - 1];
      if (!cur) continue;
      let exitCode: Fact<number>;
      if (t.death?.exitCode !== undefined)
        exitCode = { basis: 'stated', value: t.death.exitCode, from: t.death.from };
      else if (cur.exitCode !== undefined) exitCode = { basis: 'stated', value: cur.exitCode, from: t.from };
      else
        exitCode = {
          basis: 'unknown',
          why:
            t.kind === 'image'
              ? 'an image back-off follows a failed pull, not an exit'
              : 'the trace holds no exit code for the death',
        };
      const outcome: BackoffState['outcome'] = t.restarted
        ? { kind: 'restarted', at: t.restarted.at, from: t.restarted.from }
        : asOf < cur.until
          ? { kind: 'ends-inside', at: asOf }
          : { kind: 'no-restart-seen', at: asOf };
      out.push({
        kind: t.kind,
        container: t.container,
        delayS: cur.delayS,
        since: cur.since,
        until: cur.until,
        from: t.from,
        ...(t.death ? { death: t.death } : {}),
        exitCode,
        ladder: t.rungs.slice(),
        resets: t.resets,
        outcome,
        ...(t.basis ? { basis: t.basis } : {}),
      });
    }
    return out.sort((a, b) => b.from.seq - a.from.seq);
  }
}
