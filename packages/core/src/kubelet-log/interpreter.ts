/**
 * Interpreter: the second half of the importer. Finished log entries in (EntryReader's), trace events out:
 * each entry is offered to the message families (recognise.ts), and one no family reads becomes a range of the
 * raw-line index when there is one (raw-index.ts; an entry sink, raw-entries.ts, gets each as its log.raw event
 * leaves the window instead), else a `log.raw` event naming the pod it mentions. Either way
 * a pod it names both ways teaches the node's register. Events wait in a ReorderBuffer window and leave in time order through
 * `onEvent`, each given the pod name or UID a later line taught the node's register, and its seq from 1.
 *
 * Called by KubeletLogParser with each entry its EntryReader finishes, in that order (the only order the
 * Interpreter needs: it keeps no line-level state). Nothing here blocks; memory is the reorder window and the
 * per-node register of pods and containers.
 */
import type { TraceEvent, TraceType } from '../events/trace.ts';
import { type Entry, rawEvent, rawPodOf } from './entry.ts';
import { jsonText, type Structured } from './kv.ts';
import { fromRef } from './pods.ts';
import { PendingRaw, type RawEntrySink } from './raw-entries.ts';
import type { RawSink } from './raw-index.ts';
import { recognise, structuredOf, structuredOfJson } from './recognise.ts';
import { ReorderBuffer } from './reorder.ts';
import type { Ctx, Draft, Msg, NodeState } from './state.ts';

const POD_REFS = new Set<TraceType>([
  'config.update',
  'pleg.event',
  'worker.update',
  'worker.state',
  'sync.start',
  'sync.result',
  'backoff',
  'probe.result',
  'status.update',
  'k8s.event',
]);

export class Interpreter {
  private readonly reorder: ReorderBuffer<TraceEvent | PendingRaw>;
  /** `failed`: entries a family broke on, kept raw (also counted in `raw`) */
  readonly counts = { understood: 0, raw: 0, events: 0, failed: 0 };
  /** pod UIDs events named, by node name (a pod is its node and UID) */
  private readonly pods = new Map<string, Set<string>>();
  podCount = 0;
  first: number | undefined;
  last: number | undefined;
  private seq = 0;
  /** events that named their pod by name alone, with their entries, while they wait in the window */
  private readonly byName = new Map<TraceEvent, Entry>();
  /** the pod a raw entry names (one object, reused) */
  private readonly ref: { pod?: string | undefined; podUID?: string | undefined } = {};

  /**
   * `nodeNamed`: the node of that name the entries came from (the reader's register); `rawIndex`: where unread
   * entries go as line ranges instead of log.raw events; `rawEntries`: where they go whole, in trace order
   */
  constructor(
    private readonly onEvent: (ev: TraceEvent) => void,
    private readonly nodeNamed: (name: string) => NodeState | undefined,
    reorderWindowMs?: number,
    private readonly rawIndex?: RawSink,
    private readonly rawEntries?: RawEntrySink,
  ) {
    this.reorder = new ReorderBuffer((ev) => this.out(ev), reorderWindowMs);
  }

  get late(): number {
    return this.reorder.late;
  }

  /** The entry being read, as the recognisers see it (one object, reused: no closure per entry). */
  private readonly ctx: Ctx & { entry: Entry | undefined; emitted: boolean } = {
    time: 0,
    line: 0,
    node: undefined as unknown as NodeState,
    entry: undefined,
    emitted: false,
    emit: (d: Draft) => {
      this.ctx.emitted = true;
      this.emit(d, this.ctx.entry as Entry);
    },
  };

  /** A finished entry: the families' events, else a range of the raw-line index or one log.raw event. */
  entry(e: Entry): void {
    // an entry that breaks a family is kept raw: it never stops the entries after it
    try {
      if (this.read(e)) return;
    } catch {
      this.counts.failed += e.lines;
    }
    this.counts.raw += e.lines;
    this.noteTime(e.time);
    const ref = this.ref;
    ref.pod = ref.podUID = undefined;
    if (e.json) {
      const p = e.json.pod as { name?: unknown; namespace?: unknown } | string | undefined;
      // an object (klog.KObj as klog v2.30+ writes it), or its text "ns/name" before
      if (typeof p === 'string') ref.pod = fromRef(p);
      else if (p && typeof p.name === 'string' && typeof p.namespace === 'string')
        ref.pod = `${p.namespace}/${p.name}`;
      if (typeof e.json.podUID === 'string') ref.podUID = e.json.podUID;
    } else rawPodOf(e.text, ref);
    // a line no family reads may still be the one that names a pod both ways
    if (ref.pod !== undefined && ref.podUID !== undefined && e.node.pods.uidOf(ref.pod) !== ref.podUID)
      e.node.pods.note(ref.pod, ref.podUID);
    if (this.rawIndex && !this.rawEntries) {
      this.rawIndex.add(e.node.name, e.line, e.line + e.lines - 1);
      return;
    }
    const text = e.json ? jsonText(e.json) : e.text;
    // bound for an entry sink, it waits in the window as its log.raw event would: the same pod, the same place
    this.reorder.push(
      this.rawEntries
        ? new PendingRaw(e.node.name, e.line, e.lines, e.time, e.level, e.source, text, ref.pod, ref.podUID)
        : rawEvent(text, e.level, e.source, ref, e.time, e.node.name, e.line),
    );
  }

  /** true when some family read the entry */
  private read(e: Entry): boolean {
    const s = e.json ? structuredOfJson(e.json) : structuredOf(e.text);
    if (s !== null && this.understood(e, s)) return true;
    // klog JSON of a printf-style message (v1.19-v1.22 kubelets wrote most so) is read as the glog text it holds
    return (
      e.json !== undefined &&
      e.text.charCodeAt(0) !== 34 &&
      structuredOf(e.text) === undefined &&
      this.understood(e, undefined)
    );
  }

  /** Lets out every event still in the window. */
  flush(): void {
    this.reorder.flush();
  }

  /** Offers the entry to the recognisers; true when one understood it. */
  private understood(e: Entry, s: Structured | undefined): boolean {
    const msg: Msg = { text: e.text, level: e.level, source: e.source };
    if (s) msg.s = s;
    const ctx = this.ctx;
    ctx.time = e.time;
    ctx.line = e.line;
    ctx.node = e.node;
    ctx.entry = e;
    ctx.emitted = false;
    if (recognise(msg, ctx)) {
      this.counts.understood += e.lines;
      if (!ctx.emitted) this.noteTime(e.time);
      return true;
    }
    return false;
  }

  private noteTime(t: number): void {
    if (this.first === undefined || t < this.first) this.first = t;
    if (this.last === undefined || t > this.last) this.last = t;
  }

  private emit(d: Draft, e: Entry): void {
    const reg = e.node.pods;
    if (d.podUID && !d.pod) {
      const pod = reg.podOf(d.podUID);
      if (pod) d.pod = pod;
    } else if (d.pod && !d.podUID) {
      const uid = reg.uidOf(d.pod);
      if (uid) d.podUID = uid;
    } else if (d.pod && d.podUID) reg.note(d.pod, d.podUID);
    if (d.podUID) e.node.touched.add(d.podUID);
    if (d.pod) e.node.touched.add(d.pod);
    this.noteTime(e.time);
    const ev = d as Draft & { seq: number; time: number; node: string; origin: { line: number } };
    ev.seq = 0;
    ev.time = e.time;
    ev.node = e.node.name;
    ev.origin = { line: e.line };
    if (d.podName !== undefined) this.byName.set(ev as TraceEvent, e);
    this.reorder.push(ev as TraceEvent);
  }

  /**
   * An event that named its pod by name alone, leaving the window: the one pod of that name the node's lines
   * named by now, else the entry is kept raw after all (undefined when it goes to the raw-line index).
   */
  private named(
    ev: TraceEvent & { podName?: string; pod?: string; podUID?: string },
  ): TraceEvent | PendingRaw | undefined {
    const e = this.byName.get(ev) as Entry;
    this.byName.delete(ev);
    const p = e.node.pods.byBareName(ev.podName as string);
    if (p) {
      ev.podName = undefined;
      ev.pod = p.pod;
      ev.podUID = p.uid;
      return ev;
    }
    this.counts.understood -= e.lines;
    this.counts.raw += e.lines;
    if (this.rawIndex && !this.rawEntries) {
      this.rawIndex.add(e.node.name, e.line, e.line + e.lines - 1);
      return undefined;
    }
    if (this.rawEntries)
      return new PendingRaw(
        e.node.name,
        e.line,
        e.lines,
        e.time,
        e.level,
        e.source,
        e.text,
        undefined,
        undefined,
      );
    return rawEvent(
      e.text,
      e.level,
      e.source,
      { pod: undefined, podUID: undefined },
      e.time,
      e.node.name,
      e.line,
    );
  }

  /** Leaves the reorder window: the pod name/UID a later line gave is filled in, then the seq. */
  private out(event: TraceEvent | PendingRaw): void {
    let ev =
      event instanceof PendingRaw || this.byName.size === 0 || !this.byName.has(event)
        ? event
        : this.named(event);
    if (ev === undefined) return;
    if (ev instanceof PendingRaw) {
      // a raw entry bound for an entry sink goes there, after the events out so far, not to the trace
      if (ev.pod !== undefined || ev.podUID !== undefined) this.podOf(ev, ev.node);
      ev.after = this.seq;
      this.rawEntries?.entry(ev);
      return;
    }
    const o = ev as TraceEvent & { pod?: string; podUID?: string; container?: string };
    if (o.pod !== undefined || o.podUID !== undefined || POD_REFS.has(ev.type))
      this.podOf(o, ev.node as string);
    // a recogniser's draft may name a field it could not fill: an event never carries an undefined field
    if (ev.type !== 'log.raw') {
      const r = o as unknown as Record<string, unknown>;
      for (const k in r) {
        if (r[k] !== undefined) continue;
        const clean: Record<string, unknown> = {};
        for (const j in r) if (r[j] !== undefined) clean[j] = r[j];
        ev = clean as unknown as TraceEvent;
        break;
      }
    }
    ev.seq = ++this.seq;
    this.counts.events++;
    this.onEvent(ev);
  }

  /** The other of a leaving event's pod name and UID from the node's register, and the pod counted. */
  private podOf(o: { pod?: string | undefined; podUID?: string | undefined }, nodeName: string): void {
    const node = this.nodeNamed(nodeName);
    if (node && o.pod && !o.podUID) o.podUID = node.pods.uidOf(o.pod) ?? `${nodeName}/${o.pod}`;
    if (node && o.podUID && !o.pod) o.pod = node.pods.podOf(o.podUID) ?? '';
    if (o.podUID) {
      let uids = this.pods.get(nodeName);
      if (uids === undefined) {
        uids = new Set();
        this.pods.set(nodeName, uids);
      }
      if (!uids.has(o.podUID)) {
        uids.add(o.podUID);
        this.podCount++;
      }
    }
  }
}
