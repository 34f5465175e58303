/**
 * The round trip of the engine's kubelet-format log: a live trace → its klog lines → the kubelet-log importer
 * → per pod the same story. What must survive, per pod ("namespace/name"):
 *   config   the config ops in order
 *   pleg     the PLEG events (type and container ID) in order; the importer's inferred events aside, and
 *            ContainerRemoved only where the log's verbosity shows it (the kubelet logs it at -v=4 only)
 *   errors   the sync errors in order, each as its failed SyncResults (action, target, reason); the text around
 *            them is the kubelet's form in the log (see kubeletSyncError), the engine's own in the trace
 *   backoffs the back-off windows: one per restart, with its delay. The engine records a back-off at every
 *            sync that meets it (as the kubelet logs one); one window is one (kind, container, end time).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { kubeletLogLines } from '@syncscope/core/klog';
import { importKubeletLog } from '@syncscope/core/kubelet-log';
import type { TraceEvent } from '@syncscope/core/trace';

export interface PodStory {
  config: string[];
  pleg: string[];
  errors: string[];
  backoffs: string[];
}

const podOf = (e: TraceEvent): string | undefined => ('pod' in e ? e.pod : undefined);

/**
 * One pod's story, and when each of its container back-off windows ends (in the story's order). The engine's
 * window ends its delay after the container's finish; the log's, its delay after the death as the log shows it
 * (the relist that saw it, or a sync that met the container dead before): a little later, never a run sooner.
 */
function story(
  events: readonly TraceEvent[],
  pod: string,
  live: boolean,
  v: number,
): { story: PodStory; ends: number[] } {
  const s: PodStory = { config: [], pleg: [], errors: [], backoffs: [] };
  const ends: number[] = [];
  const windows = new Set<string>();
  for (const e of events) {
    if (podOf(e) !== pod) continue;
    if (e.type === 'config.update') s.config.push(e.op);
    if (e.type === 'pleg.event' && !e.inferred && (e.event !== 'ContainerRemoved' || v >= 4))
      s.pleg.push(`${e.event}:${e.containerID}`);
    if (e.type === 'sync.result' && e.error !== undefined && e.error !== 'context canceled') {
      const results = e.actions.filter((a) => a.error).map((a) => `${a.action}:${a.target}:${a.error}`);
      s.errors.push(results.length > 0 ? results.join(' ') : e.error);
    }
    if (e.type === 'backoff') {
      const w = `${e.kind}:${e.container}:${e.delayS}`;
      if (live) {
        const key = `${e.kind}/${e.container}/${e.until}`;
        if (windows.has(key)) continue;
        windows.add(key);
      }
      s.backoffs.push(w);
      if (e.kind === 'container') ends.push(e.until);
    }
  }
  return { story: s, ends };
}

/** Each pod's story as the live trace tells it and as the log read back tells it. */
export function compareStories(
  live: readonly TraceEvent[],
  imported: readonly TraceEvent[],
  v: number,
): {
  pods: string[];
  live: Record<string, PodStory>;
  imported: Record<string, PodStory>;
  /**
   * per pod, how much later (ms) each container back-off window ends in the log read back than in the live
   * trace, window by window (the stories say whether they are as many)
   */
  late: Record<string, number[]>;
} {
  const pods = [
    ...new Set(live.filter((e) => e.type === 'config.update').map((e) => podOf(e) as string)),
  ].sort();
  const a: Record<string, PodStory> = {};
  const b: Record<string, PodStory> = {};
  const late: Record<string, number[]> = {};
  for (const p of pods) {
    const want = story(live, p, true, v);
    const got = story(imported, p, false, v);
    a[p] = want.story;
    b[p] = got.story;
    late[p] = got.ends.map((t, i) => t - (want.ends[i] ?? Number.NaN));
  }
  return { pods, live: a, imported: b, late };
}

/** The live trace through the formatter alone, at verbosity v, as one log text. */
export function formatTrace(events: readonly TraceEvent[], v: number, pid = 4242): string {
  const lines: string[] = [];
  for (const e of events) lines.push(...kubeletLogLines(e, { v, pid }));
  return `${lines.join('\n')}\n`;
}

/** Imports a log text; the year is the first live event's (klog headers have none). */
export function importLog(text: string, live: readonly TraceEvent[]): TraceEvent[] {
  const first = live[0];
  const year = first ? new Date(first.time).getUTCFullYear() : undefined;
  return importKubeletLog(text, year === undefined ? {} : { year }).events;
}

export async function readKubeletLog(dataDir: string): Promise<string> {
  return readFile(join(dataDir, 'kubelet.log'), 'utf8');
}
