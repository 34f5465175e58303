/**
 * KubeletLogParser: kubelet log text in, trace events out, pushed: `feed(chunk)` as the text arrives (a Node
 * stream, a File read in a Web Worker), `end()` when it is over. Browser-safe (no Node imports).
 *
 * Events leave through `onEvent` in time order (a ReorderBuffer window), numbered from seq 1, each with its
 * `node`, `origin.line` and the kubelet's own time. Lines no family reads become `log.raw` events; lines of
 * other programs and blank lines are only counted. `summary()` has the counts.
 *
 * Memory is bounded by one pending entry per node, the reorder window, the per-node register of pods and
 * containers, and `maxLineChars` per line, except for newest-first input (`journalctl -r`): it is detected from
 * the first lines and then every line is held until `end()` (at most `maxReversedChars`, else an error), because
 * nothing can be emitted before the oldest line arrives. Readers that can seek read such input backwards instead
 * (readLinesBackward) and call `feedLine` with the file's line numbers.
 */
import type { TraceEvent, TraceType } from '../events/trace.ts';
import { continues, type Entry, openness, rawPodOf } from './entry.ts';
import { classify, type Line, type Prefix } from './header.ts';
import type { Structured } from './kv.ts';
import { LineSplitter } from './lines.ts';
import { Nodes } from './nodes.ts';
import { recognise, structuredOf, structuredOfJson } from './recognise.ts';
import { ReorderBuffer } from './reorder.ts';
import { looksReversed } from './reverse.ts';
import type { Ctx, Draft, Msg, NodeState } from './state.ts';
import { LocalClock } from './time.ts';

export interface ParserOptions {
  onEvent(ev: TraceEvent): void;
  /** called every `progressLines` lines with the lines read so far */
  onProgress?(lines: number): void;
  progressLines?: number;
  /** year of headers without one (default: the current year) */
  year?: number;
  /** IANA zone of header times (default UTC) */
  tz?: string;
  /** newest-first input: detect it (default), or say so */
  reversed?: 'auto' | boolean;
  maxLineChars?: number;
  maxReversedChars?: number;
  reorderWindowMs?: number;
}

export interface ImportSummary {
  lines: number;
  /** lines (with their continuation lines) some family read */
  understood: number;
  /** lines of other programs */
  other: number;
  /** kubelet lines kept as log.raw */
  raw: number;
  blank: number;
  /** lines over maxLineChars, skipped */
  tooLong: number;
  nodes: string[];
  pods: number;
  events: number;
  firstTime?: number;
  lastTime?: number;
  reversed: boolean;
  /** events whose stamp was older than one already emitted past the reorder window */
  late: number;
}

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
const DETECT_LINES = 400;
const MAX_CONT_CHARS = 1 << 20;
const CRI_RECORD = /^(\d{4})-(\d\d)-\d\dT\S+ (?:stdout|stderr) ([FP]) /;

export class KubeletLogParser {
  private readonly splitter: LineSplitter;
  private readonly clock: LocalClock;
  private readonly nodes = new Nodes();
  private readonly reorder: ReorderBuffer;
  private last: Entry | undefined;
  private readonly counts = { understood: 0, other: 0, raw: 0, blank: 0, tooLong: 0, events: 0 };
  /** pod UIDs events named, by node name (a pod is its node and UID) */
  private readonly pods = new Map<string, Set<string>>();
  private podCount = 0;
  private first: number | undefined;
  private lastTime: number | undefined;
  private seq = 0;
  private mode: 'detect' | 'forward' | 'reversed';
  private held: { text: string; no: number }[] = [];
  private heldChars = 0;
  private carry: { text: string; line: number; lines: number } | undefined;
  private linesSeen = 0;

  constructor(private readonly o: ParserOptions) {
    this.splitter = new LineSplitter(
      {
        line: (t, n) => this.onLine(t, n),
        long: (n) => {
          this.counts.tooLong++;
          this.tick(n);
        },
      },
      o.maxLineChars,
    );
    this.clock = new LocalClock(o.year ?? new Date().getUTCFullYear(), o.tz);
    this.reorder = new ReorderBuffer((ev) => this.out(ev), o.reorderWindowMs);
    this.mode = o.reversed === true ? 'reversed' : o.reversed === false ? 'forward' : 'detect';
  }

  feed(chunk: string): void {
    this.splitter.feed(chunk);
  }

  /** One line with its line number in the input as given (for readers that number lines themselves). */
  feedLine(text: string, lineNo: number): void {
    this.tick(lineNo);
    this.processLine(text.endsWith('\r') ? text.slice(0, -1) : text, lineNo);
  }

  end(): ImportSummary {
    this.splitter.end();
    if (this.mode === 'detect') this.decide();
    if (this.mode === 'reversed') {
      const held = this.held;
      this.held = [];
      for (let i = held.length - 1; i >= 0; i--)
        this.processLine((held[i] as { text: string }).text, (held[i] as { no: number }).no);
    }
    if (this.carry) this.read(this.release('', this.carry.line));
    for (const n of this.nodes.all) if (n.pending) this.finish(n.pending as Entry);
    this.reorder.flush();
    return this.summary();
  }

  /**
   * Live input (a followed file, journalctl -f): lets out every event of the lines fed so far without ending the
   * input, so the last entry does not wait for the next line. Called by a follower once its input has been
   * quiet for a moment; a header-less line after it no longer continues the entry before it (it is kept raw).
   * Does nothing for newest-first input, which cannot be emitted before it ends.
   */
  flush(): void {
    if (this.mode === 'detect') this.decide();
    if (this.mode !== 'forward') return;
    for (const n of this.nodes.all) if (n.pending) this.finish(n.pending as Entry);
    this.reorder.flush();
  }

  summary(): ImportSummary {
    const s: ImportSummary = {
      lines: Math.max(this.splitter.lines, this.linesSeen),
      ...this.counts,
      nodes: this.nodes.all.filter((n) => n.touched.size > 0 || n.pods.size > 0 || n.used).map((n) => n.name),
      pods: this.podCount,
      reversed: this.mode === 'reversed',
      late: this.reorder.late,
    };
    if (this.first !== undefined) s.firstTime = this.first;
    if (this.lastTime !== undefined) s.lastTime = this.lastTime;
    return s;
  }

  private tick(n: number): void {
    if (n > this.linesSeen) this.linesSeen = n;
    const every = this.o.progressLines ?? 65_536;
    if (this.o.onProgress && n % every === 0) this.o.onProgress(n);
  }

  private onLine(text: string, no: number): void {
    this.tick(no);
    if (this.mode === 'forward') {
      this.processLine(text, no);
      return;
    }
    this.held.push({ text, no });
    this.heldChars += text.length;
    if (this.mode === 'detect' && this.held.length >= DETECT_LINES) this.decide();
    if (this.mode === 'reversed' && this.heldChars > (this.o.maxReversedChars ?? 256 * 1024 * 1024))
      throw new Error(
        'newest-first (journalctl -r) input too large to hold: read it backwards (readLinesBackward)',
      );
  }

  private decide(): void {
    this.mode = looksReversed(this.held.map((h) => h.text)) ? 'reversed' : 'forward';
    if (this.mode === 'forward') {
      const held = this.held;
      this.held = [];
      this.heldChars = 0;
      for (const h of held) this.processLine(h.text, h.no);
    }
  }

  /**
   * Records split by a container runtime (docker json-file at 16 KiB without a trailing newline, CRI logs
   * flagged P) are joined before they are read; the entry counts all their lines.
   */
  private processLine(raw: string, no: number, final = false): void {
    // the CRI log format starts with a year; nothing else a kubelet writes starts with four digits and a dash
    const cri = raw.charCodeAt(4) === 45 && raw.charCodeAt(0) <= 57 ? CRI_RECORD.exec(raw) : null;
    if (cri) {
      const y = Number(cri[1]);
      if (y > 1970) this.clock.setYear(y, Number(cri[2]));
      const body = raw.slice(cri[0].length);
      if (cri[3] === 'P' && !final) this.hold(body, no);
      else this.read(this.release(body, no));
      return;
    }
    let line: Line = classify(raw);
    if (line.kind === 'docker') {
      const t = line.time;
      const y = Number(t.slice(0, 4));
      if (y > 1970) this.clock.setYear(y, Number(t.slice(5, 7)));
      if (!line.log.endsWith('\n') && !final) {
        this.hold(line.log, no);
        return;
      }
      const joined = this.release(line.log.endsWith('\n') ? line.log.slice(0, -1) : line.log, no);
      line = classify(joined.text);
      if (line.kind === 'docker') line = { kind: 'other' };
      this.take(line, joined.line, joined.lines);
      return;
    }
    this.take(line, no, 1);
  }

  private hold(text: string, no: number): void {
    if (this.carry) {
      this.carry.text += text;
      this.carry.lines++;
    } else this.carry = { text, line: no, lines: 1 };
  }

  private release(text: string, no: number): { text: string; line: number; lines: number } {
    const c = this.carry;
    this.carry = undefined;
    return c ? { text: c.text + text, line: c.line, lines: c.lines + 1 } : { text, line: no, lines: 1 };
  }

  private read(j: { text: string; line: number; lines: number }): void {
    this.take(classify(j.text), j.line, j.lines);
  }

  private take(line: Line, no: number, span: number): void {
    switch (line.kind) {
      case 'blank':
        this.counts.blank++;
        return;
      case 'other':
        this.counts.other++;
        return;
      case 'klog': {
        if (line.prefix.year !== undefined)
          this.clock.setYear(line.prefix.year, line.prefix.month ?? line.month);
        const node = this.nodes.of(line.prefix, line.pid);
        const time = this.clock.toEpoch(line.month, line.day, line.h, line.m, line.s, line.micros);
        this.begin({
          line: no,
          lines: span,
          time,
          level: line.level,
          source: line.source,
          text: line.text,
          node,
        });
        return;
      }
      case 'json': {
        const node = this.nodes.of(line.prefix, undefined);
        const ts = Number(line.obj.ts);
        const time = ts > 1e11 ? ts : ts * 1000;
        const level = 'v' in line.obj ? 'I' : 'err' in line.obj ? 'E' : 'I';
        const caller = typeof line.obj.caller === 'string' ? line.obj.caller.replace(/^.*\//, '') : '';
        const e: Entry = {
          line: no,
          lines: span,
          time,
          level,
          source: caller,
          text: String(line.obj.msg),
          json: line.obj,
          node,
        };
        this.begin(e);
        return;
      }
      case 'cont':
        this.continueEntry(line.prefix, line.text, no);
    }
  }

  private begin(e: Entry): void {
    const prev = e.node.pending as Entry | undefined;
    if (prev) this.finish(prev);
    e.node.pending = e;
    this.last = e;
    e.node.used = true;
  }

  /**
   * A line without a header: the next line of a multi-line message (an indented line, a closing bracket, or
   * the entry before it left a bracket or a `key=<` value open), else a line of its own, kept raw at the time
   * of the entry before it.
   */
  private continueEntry(prefix: Prefix, text: string, no: number): void {
    const prefixed = prefix.host !== undefined || prefix.pid !== undefined;
    const node = prefixed ? this.nodes.of(prefix, undefined) : this.last?.node;
    const e = node?.pending as Entry | undefined;
    if (e && !e.json && e.text.length + text.length <= MAX_CONT_CHARS && continues(e, text)) {
      e.text += `\n${text}`;
      e.open = (e.open ?? openness(e.text)) + openness(text);
      e.lines++;
      return;
    }
    if (!node || this.last === undefined) {
      this.counts.other++;
      return;
    }
    this.begin({ line: no, lines: 1, time: this.last.time, level: '', source: '', text, node });
  }

  /** the pod a raw entry names (one object, reused) */
  private readonly rawRef: { pod?: string | undefined; podUID?: string | undefined } = {};

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

  private finish(e: Entry): void {
    if (e.node.pending === e) e.node.pending = undefined;
    const s = e.json ? structuredOfJson(e.json) : structuredOf(e.text);
    if (s !== null && this.understood(e, s)) return;
    this.counts.raw += e.lines;
    this.noteTime(e.time);
    // the pod the line names first, so the event is made whole at once (an object given a property later has
    // it stored apart, one more allocation for most lines of a log)
    const ref = this.rawRef;
    ref.pod = ref.podUID = undefined;
    if (e.json) {
      const p = e.json.pod as { name?: unknown; namespace?: unknown } | undefined;
      if (p && typeof p.name === 'string' && typeof p.namespace === 'string')
        ref.pod = `${p.namespace}/${p.name}`;
      if (typeof e.json.podUID === 'string') ref.podUID = e.json.podUID;
    } else rawPodOf(e.text, ref);
    const text = e.json ? JSON.stringify(e.json) : e.text;
    const origin = { line: e.line };
    // out() fills in the other of pod and podUID when one is known
    const raw =
      ref.pod === undefined && ref.podUID === undefined
        ? {
            type: 'log.raw',
            text,
            level: e.level,
            source: e.source,
            seq: 0,
            time: e.time,
            node: e.node.name,
            origin,
          }
        : {
            type: 'log.raw',
            text,
            level: e.level,
            source: e.source,
            pod: ref.pod,
            podUID: ref.podUID,
            seq: 0,
            time: e.time,
            node: e.node.name,
            origin,
          };
    this.reorder.push(raw as unknown as TraceEvent);
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
    if (this.lastTime === undefined || t > this.lastTime) this.lastTime = t;
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
    this.reorder.push(ev as TraceEvent);
  }

  /** Leaves the reorder window: the pod name/UID a later line gave is filled in, then the seq. */
  private out(event: TraceEvent): void {
    let ev = event;
    const o = ev as TraceEvent & { pod?: string; podUID?: string; container?: string };
    if (o.pod !== undefined || o.podUID !== undefined || POD_REFS.has(ev.type)) {
      const node = this.nodes.byName(ev.node as string);
      if (node && o.pod && !o.podUID) o.podUID = node.pods.uidOf(o.pod) ?? `${ev.node}/${o.pod}`;
      if (node && o.podUID && !o.pod) o.pod = node.pods.podOf(o.podUID) ?? '';
      if (o.podUID) {
        let uids = this.pods.get(ev.node as string);
        if (uids === undefined) {
          uids = new Set();
          this.pods.set(ev.node as string, uids);
        }
        if (!uids.has(o.podUID)) {
          uids.add(o.podUID);
          this.podCount++;
        }
      }
    }
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
    this.o.onEvent(ev);
  }
}
