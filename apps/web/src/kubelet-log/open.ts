/**
 * Opening a kubelet log as a replay. openKubeletLog runs the parse in a Web Worker and resolves with every
 * event and the summary; logReplay turns that into the ReplayStore the views read, one node at a time (a log
 * that interleaves several kubelets is several nodes: the same pod name on two of them is two pods, so the
 * replay shows the node the user picks). A log shared through the server is read back by ./shared.ts.
 */
import { type ImportSummary, readRawRecords } from '@syncscope/core/kubelet-log';
import type { TraceEvent } from '@syncscope/core/trace';
import { type Fleet, fleetOf } from '../lib/fleet.ts';
import {
  buildReplay,
  type KubeletLogReplay,
  ReplayFacts,
  type ReplayStore,
  replayOfTrace,
} from '../lib/replay.ts';
import { applyEvents, emptyTraceState, type TraceState } from '../lib/trace-store.ts';
import { fileLines, type LineSource } from './lines.ts';
import type { ParseMessage, ParseRequest } from './protocol.ts';
import { RawMerge, recordTexts } from './raw-records.ts';

export interface ParsedLog {
  events: TraceEvent[];
  byNode: Map<string, TraceState>;
  facts: Map<string, ReplayFacts>;
  summary: ImportSummary;
  lines: LineSource;
}

/** the fields whose few values most events repeat (a log.raw event has all but container) */
const REPEATED = ['type', 'level', 'source', 'node', 'pod', 'podUID', 'container'] as const;
/** at most this many distinct values are kept shared (a log names a few thousand files, pods and nodes) */
const MAX_SHARED = 65_536;

/**
 * A log's events indexed by node as they arrive (a batch at a time from the worker): each node's trace and the
 * facts its pods and node are rebuilt from, so the last batch leaves little for the frame that shows the replay.
 *
 * A batch crosses from the worker as a copy in which every string is a string of its own: the type, level,
 * source file, node and pod of each event are replaced by one shared string per value, so of the nine objects
 * a raw line's event arrives as the page keeps three (the event, its origin and its text); the copies die young.
 */
export class NodeIndex {
  readonly events: TraceEvent[] = [];
  readonly byNode = new Map<string, TraceState>();
  readonly facts = new Map<string, ReplayFacts>();
  private readonly shared = new Map<string, string>();

  private share(ev: TraceEvent): void {
    const o = ev as unknown as Record<string, unknown>;
    for (const k of REPEATED) {
      const v = o[k];
      if (typeof v !== 'string') continue;
      const s = this.shared.get(v);
      if (s !== undefined) o[k] = s;
      else if (this.shared.size < MAX_SHARED) this.shared.set(v, v);
    }
  }

  add(batch: readonly TraceEvent[]): void {
    const groups = new Map<string, TraceEvent[]>();
    for (const ev of batch) {
      this.share(ev);
      this.events.push(ev);
      const key = ev.node ?? '';
      const g = groups.get(key);
      if (g) g.push(ev);
      else groups.set(key, [ev]);
    }
    for (const [key, g] of groups) {
      this.byNode.set(key, applyEvents(this.byNode.get(key) ?? emptyTraceState(Number.MAX_SAFE_INTEGER), g));
      let f = this.facts.get(key);
      if (!f) {
        f = new ReplayFacts();
        this.facts.set(key, f);
      }
      f.add(g);
    }
  }
}

/**
 * Parses `file` in a worker; `onProgress` gets the share of bytes read (0..1). Rejects on a worker error. The
 * worker's batches are taken in order, each once its unread entries' texts are read back (raw-records.ts): from
 * the file as it comes, or, for a file whose text the worker makes (gzip, UTF-16), from that text once it is sent.
 */
export function openKubeletLog(file: Blob, onProgress: (fraction: number) => void): Promise<ParsedLog> {
  const worker = new Worker(new URL('./parse.worker.ts', import.meta.url), { type: 'module' });
  let index = new NodeIndex();
  let merge = new RawMerge();
  let setBytes: (b: Blob) => void = () => undefined;
  const bytes = new Promise<Blob>((res) => {
    setBytes = res;
  });
  let taken = Promise.resolve();
  const queue = (step: () => void | Promise<void>) => {
    taken = taken.then(step);
    // a failure is reported once, at the end
    taken.catch(() => undefined);
  };
  const take = async (events: TraceEvent[], raws: string) => {
    const records = readRawRecords(raws);
    const texts = records.length > 0 ? await recordTexts(await bytes, records) : [];
    index.add(merge.merge(events, records, texts));
  };
  return new Promise<ParsedLog>((resolve, reject) => {
    const fail = (err: unknown) => {
      worker.terminate();
      reject(err instanceof Error ? err : new Error(String(err)));
    };
    worker.onmessage = (e: MessageEvent<ParseMessage>) => {
      const m = e.data;
      if (m.type === 'start') {
        if (!m.kept) setBytes(file);
      } else if (m.type === 'progress') onProgress(m.total > 0 ? m.bytes / m.total : 1);
      else if (m.type === 'restart')
        queue(() => {
          index = new NodeIndex();
          merge = new RawMerge();
        });
      else if (m.type === 'events') queue(() => take(m.events, m.raws));
      else if (m.type === 'done') {
        worker.terminate();
        setBytes(m.text ?? file);
        taken.then(
          () =>
            resolve({
              events: index.events,
              byNode: index.byNode,
              facts: index.facts,
              summary: m.summary,
              lines: fileLines(m.text ?? file, m.lineStarts),
            }),
          fail,
        );
      } else fail(new Error(m.message));
    };
    worker.onerror = (e) => fail(new Error(e.message || 'the log could not be read'));
    const req: ParseRequest = { file };
    worker.postMessage(req);
  });
}

/** The node with the most events: the one a log of several nodes opens on (counted from each node's trace
 * when the log's events were sorted by node as they arrived). */
function busiestNode(log: Omit<KubeletLogReplay, 'node'>): string | null {
  const counts = new Map<string, number>();
  if (log.byNode) {
    for (const [node, t] of log.byNode) if (node) counts.set(node, t.events.length);
  } else {
    for (const ev of log.all) if (ev.node) counts.set(ev.node, (counts.get(ev.node) ?? 0) + 1);
  }
  let best: string | null = null;
  let most = 0;
  for (const [node, n] of counts) {
    if (n > most) {
      best = node;
      most = n;
    }
  }
  return best;
}

const FLEETS = new WeakMap<readonly TraceEvent[], Fleet>();

/**
 * The log's fleet (lib/fleet.ts): every node with its pods and pods in trouble. Worked out once per log, from
 * the facts gathered while it was read, or (a log read back from the server) from its events by node.
 */
export function logFleet(log: Omit<KubeletLogReplay, 'node'>): Fleet {
  const known = FLEETS.get(log.all);
  if (known) return known;
  let facts = log.facts;
  if (!facts) {
    const byNode = new Map<string, TraceEvent[]>();
    for (const ev of log.all) {
      const key = ev.node ?? '';
      const g = byNode.get(key);
      if (g) g.push(ev);
      else byNode.set(key, [ev]);
    }
    facts = new Map([...byNode].map(([key, g]) => [key, new ReplayFacts().add(g)]));
  }
  const fleet = fleetOf(log.summary, facts);
  FLEETS.set(log.all, fleet);
  return fleet;
}

/** The replay of one node of a parsed log (all events when the log names one node or none). */
export function logReplay(
  name: string,
  log: Omit<KubeletLogReplay, 'node'>,
  node: string | null = log.summary.nodes.length > 1 ? busiestNode(log) : null,
): ReplayStore {
  // the node's trace and facts as built while the events arrived (the only ones when the log names no node)
  const key =
    log.byNode?.has(node ?? '') === true
      ? (node ?? '')
      : node === null && log.byNode?.size === 1
        ? [...log.byNode.keys()][0]
        : undefined;
  const built = key === undefined ? undefined : log.byNode?.get(key);
  const store = built
    ? replayOfTrace(built, name, key === undefined ? undefined : log.facts?.get(key))
    : buildReplay(node === null ? log.all : log.all.filter((ev) => ev.node === node), name);
  const key0 = node ?? log.summary.nodes[0];
  // the node's name as the fleet knows it: its host, or the name one of its lines gave its process
  const nodeName = key0 && (logFleet(log).nodes.find((n) => n.key === key0)?.name ?? key0);
  return {
    ...store,
    node: nodeName ? { ...store.node, nodeName } : store.node,
    log: { ...log, node },
  };
}

type OpenRequest = (file: File) => void;
const openRequests = new Set<OpenRequest>();

/**
 * Hands `file` to the page's log opener (LogOpener), which opens it as any log it is given: its progress bar,
 * its errors, the replay it starts. False when no opener is on the page.
 */
export function requestLogOpen(file: File): boolean {
  for (const open of openRequests) open(file);
  return openRequests.size > 0;
}

/** Called by the log opener while it is mounted: `open` gets every file requestLogOpen is given. */
export function onLogOpenRequest(open: OpenRequest): () => void {
  openRequests.add(open);
  return () => {
    openRequests.delete(open);
  };
}

/**
 * Shows a replay at a page of it. The hash is pushed without a hashchange event: the replay arrives in a
 * transition, and a route change seen first would show the new page with the old source still open (the
 * same pod name on another node, or on the live node). The replay's views read the hash when they mount;
 * Back still fires hashchange.
 */
export function openAt(hash: string, store: ReplayStore, onReplay: (store: ReplayStore) => void): void {
  if (window.location.hash !== hash) window.history.pushState(null, '', hash);
  onReplay(store);
}
