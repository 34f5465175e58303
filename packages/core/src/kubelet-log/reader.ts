/**
 * EntryReader: the first half of the importer. Kubelet log text in, pushed (`feed(chunk)` as it arrives, `end()`
 * when it is over), finished log entries out through `onEntry`, in the order they finish: each entry is one
 * klog line (text or JSON) with the lines that continue it, its node, the kubelet's own time, level and source
 * file. Lines of other programs and blank lines are only counted. What the entries mean is the Interpreter's.
 * Browser-safe (no Node imports).
 *
 * Memory is bounded by one pending entry per node, the register of nodes, and `maxLineChars` per line, except
 * for newest-first input (`journalctl -r`): it is detected from the first lines and then every line is held
 * until `end()` (at most `maxReversedChars`, else an error), because nothing can be finished before the oldest
 * line arrives. Readers that can seek read such input backwards instead (readLinesBackward) and call
 * `feedLine` with the file's line numbers.
 */
import { Undecorator } from './decor.ts';
import { continues, type Entry, openness } from './entry.ts';
import { classify, type Line } from './header.ts';
import { JournalFields } from './journal-fields.ts';
import { LineSplitter, MAX_LINE_CHARS } from './lines.ts';
import { Nodes } from './nodes.ts';
import { type Prefix, SeenPrefixes } from './prefix.ts';
import { PrettyJson } from './pretty-json.ts';
import { looksReversed } from './reverse.ts';
import type { NodeState } from './state.ts';
import { LocalClock } from './time.ts';

export interface ReaderOptions {
  /** a finished entry; it is the callee's from then on */
  onEntry(e: Entry): void;
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
}

const DETECT_LINES = 400;
const MAX_CONT_CHARS = 1 << 20;
const CRI_RECORD = /^(\d{4})-(\d\d)-\d\dT\S+ (?:stdout|stderr) ([FP]) /;
/**
 * The four lines glog (and klog) write at the top of every file a kubelet run with --log-dir or --log-file
 * starts: the file's date gives the year the headers lack, the machine names the node of the bare lines after.
 */
const GLOG_CREATED = /^Log file created at: (\d{4})\/(\d\d)\/\d\d \d\d:\d\d:\d\d\s*$/;
const GLOG_MACHINE = /^Running on machine: (\S+)\s*$/;
const GLOG_HEADER = /^(?:Binary: |Log line format: \[IWEF\])/;
/** glog's header behind a node's name (`oc adm node-logs --path=kubelet/kubelet.log` over several nodes) */
const NAMED_GLOG_HEADER =
  /^[a-z0-9][-a-z0-9.]* ((?:Log file created at|Running on machine|Binary|Log line format): .*)$/;
/**
 * `==> name <==` (minikube may put `* ` before it): a section of several logs in one (`minikube logs`, `tail` of
 * several files); only a section whose name says kubelet is read, the others are other programs'.
 */
const SECTION = /^(?:\* )?==> (.+) <==\s*$/;

/** which process a prefix names (host, program, pid) */
const processOf = (p: Prefix) => `${p.host ?? ''}|${p.ident ?? ''}|${p.pid ?? ''}`;

export class EntryReader {
  private readonly splitter: LineSplitter;
  /** records pretty-printed over many lines (json-pretty, gcloud), when the input is such a document */
  private readonly pretty: PrettyJson;
  /** journalctl's field-per-line entries (-o verbose, -o export), when the input is such a form */
  private readonly journal: JournalFields;
  private readonly clock: LocalClock;
  private readonly nodes = new Nodes();
  private last: Entry | undefined;
  /** `failed`: lines that broke a reader (counted, passed over); `header`: lines of glog's file header (read for the year and the machine) and `==> name <==` headers */
  readonly counts = { other: 0, blank: 0, tooLong: 0, header: 0, failed: 0 };
  /** the machine the last glog file header named: the host of the bare lines after it */
  private machine: Prefix | undefined;
  /** the process whose last line was another part's (its component named), while no kubelet line followed */
  private foreign: string | undefined;
  /** the prefix forms this input's kubelet lines came behind (a node's name, a stamp alone) */
  private readonly seen = new SeenPrefixes();
  /** in a `==> name <==` section of another program's log */
  private otherSection = false;
  private mode: 'detect' | 'forward' | 'reversed';
  private held: { text: string; no: number }[] = [];
  private heldChars = 0;
  private carry: { text: string; line: number; lines: number } | undefined;
  private linesSeen = 0;
  /** a paste's decorations (line numbers, file names, quoting, borders) taken off per block */
  private readonly decor = new Undecorator({
    line: (t, n) => this.readSafely(t, n),
    year: (y, m) => this.clock.setYear(y, m),
  });

  constructor(private readonly o: ReaderOptions) {
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
    this.pretty = new PrettyJson(
      {
        record: (text, line, lines) => this.take(classify(text, this.seen), line, lines),
        structural: () => {
          this.counts.header++;
        },
        dropped: (lines) => {
          this.counts.other += lines;
        },
        replay: (lines) => {
          for (const l of lines) this.readSafely(l.text, l.no);
        },
      },
      o.maxLineChars ?? MAX_LINE_CHARS,
    );
    this.journal = new JournalFields(
      {
        record: (text, line, lines) => this.take(classify(text, this.seen), line, lines),
        dropped: (lines) => {
          this.counts.other += lines;
        },
      },
      o.maxLineChars ?? MAX_LINE_CHARS,
    );
    this.clock = new LocalClock(o.year ?? new Date().getUTCFullYear(), o.tz);
    this.mode = o.reversed === true ? 'reversed' : o.reversed === false ? 'forward' : 'detect';
  }

  feed(chunk: string): void {
    this.splitter.feed(chunk);
  }

  /** One line with its line number in the input as given (for readers that number lines themselves). */
  feedLine(text: string, lineNo: number): void {
    this.tick(lineNo);
    if (text.length > (this.o.maxLineChars ?? MAX_LINE_CHARS)) {
      this.counts.tooLong++;
      return;
    }
    this.processLine(text.endsWith('\r') ? text.slice(0, -1) : text, lineNo);
  }

  /** The input is over: every entry still open is finished. */
  end(): void {
    this.splitter.end();
    if (this.mode === 'detect') this.decide();
    if (this.mode === 'reversed') {
      const held = this.held;
      this.held = [];
      for (let i = held.length - 1; i >= 0; i--)
        this.processLine((held[i] as { text: string }).text, (held[i] as { no: number }).no);
    }
    this.decor.flush();
    this.journal.end();
    this.pretty.end();
    if (this.carry) this.read(this.release('', this.carry.line));
    for (const n of this.nodes.all) if (n.pending) this.finish(n.pending as Entry);
  }

  /**
   * Live input (KubeletLogParser.flush): finishes every open entry without ending the input; a header-less line
   * after it no longer continues the entry before it. Does nothing for newest-first input, which cannot be
   * finished before it ends, and then says false.
   */
  flush(): boolean {
    if (this.mode === 'detect') this.decide();
    if (this.mode !== 'forward') return false;
    this.decor.flush();
    for (const n of this.nodes.all) if (n.pending) this.finish(n.pending as Entry);
    return true;
  }

  /** lines read so far */
  get lines(): number {
    return Math.max(this.splitter.lines, this.linesSeen);
  }

  /** the node of that name, once a line named it */
  nodeNamed(name: string): NodeState | undefined {
    return this.nodes.byName(name);
  }

  /** the names of the nodes some kubelet line came from, in the order they were first seen */
  get nodeNames(): string[] {
    return this.nodes.all.filter((n) => n.used).map((n) => n.name);
  }

  get reversed(): boolean {
    return this.mode === 'reversed';
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
  private processLine(raw: string, no: number): void {
    this.decor.line(raw, no);
  }

  private readSafely(raw: string, no: number): void {
    // a line that breaks a reader is counted and passed over: it never stops the lines after it
    try {
      this.readLine(raw, no, false);
    } catch {
      this.counts.failed++;
    }
  }

  private readLine(raw: string, no: number, final: boolean): void {
    if (this.journal.take(raw, no) || this.pretty.take(raw, no)) return;
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
    const c0 = raw.charCodeAt(0);
    if (c0 === 61 || (c0 === 42 && raw.startsWith('* ==> '))) {
      const section = SECTION.exec(raw);
      if (section) {
        this.otherSection = !/kubelet/i.test(section[1] as string);
        if (this.otherSection) this.counts.other++;
        else this.counts.header++;
        return;
      }
    }
    if (this.otherSection) {
      this.counts.other++;
      return;
    }
    if ((c0 === 76 || c0 === 82 || c0 === 66) && this.glogHeader(raw)) return;
    let line: Line = classify(raw, this.seen);
    if (line.kind === 'docker') {
      const t = line.time;
      const y = Number(t.slice(0, 4));
      if (y > 1970) this.clock.setYear(y, Number(t.slice(5, 7)));
      if (!line.log.endsWith('\n') && !final) {
        this.hold(line.log, no);
        return;
      }
      const joined = this.release(line.log.endsWith('\n') ? line.log.slice(0, -1) : line.log, no);
      line = classify(joined.text, this.seen);
      if (line.kind === 'docker') line = { kind: 'other' };
      this.take(line, joined.line, joined.lines);
      return;
    }
    this.take(line, no, 1);
  }

  /** A line of glog's file header (L, R or B first): taken in, true; else false. */
  private glogHeader(raw: string): boolean {
    const created = GLOG_CREATED.exec(raw);
    if (created) this.clock.setYear(Number(created[1]), Number(created[2]));
    else {
      const machine = GLOG_MACHINE.exec(raw);
      if (machine) this.machine = { host: machine[1] as string };
      else if (!GLOG_HEADER.test(raw)) return false;
    }
    this.counts.header++;
    return true;
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
    this.take(classify(j.text, this.seen), j.line, j.lines);
  }

  private take(line: Line, no: number, span: number): void {
    switch (line.kind) {
      case 'blank':
        this.counts.blank += span;
        return;
      case 'other':
        this.counts.other += span;
        if (line.of) this.foreign = processOf(line.of);
        return;
      case 'klog': {
        this.seen.note(line.prefix);
        this.foreign = undefined;
        if (line.prefix.year !== undefined)
          this.clock.setYear(line.prefix.year, line.prefix.month ?? line.month);
        const bare = line.prefix.host === undefined && this.machine !== undefined;
        const node = this.nodes.of(bare ? (this.machine as Prefix) : line.prefix, line.pid);
        const time = this.clock.toEpoch(line.month, line.day, line.h, line.m, line.s, line.micros);
        node.process(line.prefix.pid ?? line.pid, time);
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
        const ts = line.obj.ts as number;
        const time = ts > 1e11 ? ts : ts * 1000;
        // klog's JSON writes the verbosity `v` on info lines only
        const level = 'v' in line.obj ? 'I' : 'E';
        const caller = typeof line.obj.caller === 'string' ? line.obj.caller.replace(/^.*\//, '') : '';
        // klog before v2.5 kept the newline of a printf-style message
        const msg = line.obj.msg as string;
        const e: Entry = {
          line: no,
          lines: span,
          time,
          level,
          source: caller,
          text: msg.endsWith('\n') ? msg.slice(0, -1) : msg,
          json: line.obj,
          node,
        };
        this.begin(e);
        return;
      }
      case 'cont': {
        // the next line of another part's message (MicroShift's etcd printing a struct)
        if (this.foreign !== undefined && processOf(line.prefix) === this.foreign) {
          this.counts.other += span;
          return;
        }
        const named = line.text.charCodeAt(0) >= 48 ? NAMED_GLOG_HEADER.exec(line.text) : null;
        if (named && this.glogHeader(named[1] as string)) return;
        this.continueEntry(line.prefix, line.text, no, span);
      }
    }
  }

  private finish(e: Entry): void {
    if (e.node.pending === e) e.node.pending = undefined;
    this.o.onEntry(e);
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
  private continueEntry(prefix: Prefix, text: string, no: number, span: number): void {
    const prefixed = prefix.host !== undefined || prefix.pid !== undefined;
    const node = prefixed ? this.nodes.of(prefix, undefined) : this.last?.node;
    const e = node?.pending as Entry | undefined;
    if (e && !e.json && e.text.length + text.length <= MAX_CONT_CHARS && continues(e, text)) {
      e.text += `\n${text}`;
      e.open = (e.open ?? openness(e.text)) + openness(text);
      e.lines += span;
      return;
    }
    if (!node || this.last === undefined) {
      this.counts.other += span;
      return;
    }
    this.begin({ line: no, lines: span, time: this.last.time, level: '', source: '', text, node });
  }
}
