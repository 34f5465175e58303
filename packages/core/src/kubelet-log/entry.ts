/**
 * One kubelet log entry while it is read: its header line and the lines that continue it, and the functions that
 * decide what continues an entry, which pod a raw entry names and the log.raw event it becomes. Used by
 * KubeletLogParser only.
 */
import type { TraceEvent } from '../events/trace.ts';
import { fromFullName, isPodRef } from './pods.ts';
import type { NodeState } from './state.ts';

export interface Entry {
  line: number;
  lines: number;
  time: number;
  level: string;
  source: string;
  text: string;
  json?: Record<string, unknown>;
  node: NodeState;
  /** brackets left open by the text so far (computed when a header-less line follows) */
  open?: number;
}

/** opening minus closing brackets, and 1 for a `key=<` multi-line value not yet closed by " >" */
export function openness(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 123 || c === 40 || c === 91) n++;
    else if (c === 125 || c === 41 || c === 93) n--;
  }
  if (text.endsWith('=<') || text.includes('=<\n')) n++;
  if (text === ' >' || text.endsWith('\n >')) n--;
  return n;
}

export function continues(e: Entry, text: string): boolean {
  if (/^[\s>}\])]/.test(text)) return true;
  e.open ??= openness(e.text);
  return e.open > 0;
}

const UID_AT = /^"?([0-9a-f-]{32,36})/;

/** where the first ` pod="` is, or -1 (searched from its rarer letter: a line has many blanks) */
function podAt(text: string): number {
  for (let i = text.indexOf('pod="', 1); i > 0; i = text.indexOf('pod="', i + 1))
    if (text.charCodeAt(i - 1) === 32) return i - 1;
  return -1;
}

/** The pod a raw line names, cheaply: `pod="ns/name"`, else `podUID=…`, else a glog `"name_ns(uid)"`. */
export function rawPodOf(text: string, raw: { pod?: string | undefined; podUID?: string | undefined }): void {
  let i = podAt(text);
  if (i >= 0) {
    const end = text.indexOf('"', i + 6);
    const ref = end > 0 ? text.slice(i + 6, end) : '';
    if (isPodRef(ref)) raw.pod = ref;
  }
  i = text.indexOf('podUID=');
  if (i >= 0) {
    const m = UID_AT.exec(text.slice(i + 7, i + 45));
    if (m) raw.podUID = m[1];
  }
  if (raw.pod || raw.podUID) return;
  i = text.indexOf(')"');
  if (i >= 0) {
    const open = text.lastIndexOf('"', i);
    const p = open >= 0 ? fromFullName(text.slice(open + 1, i + 1)) : undefined;
    if (p) {
      raw.pod = p.pod;
      if (p.uid) raw.podUID = p.uid;
    }
  }
}

/**
 * A log.raw event, made whole at once (an object given a property later has it stored apart, one more
 * allocation for most lines of a log). `text` is the entry's text, or its JSON for a klog JSON entry.
 */
export function rawEvent(
  text: string,
  level: string,
  source: string,
  ref: { pod?: string | undefined; podUID?: string | undefined },
  time: number,
  node: string,
  line: number,
): TraceEvent {
  const origin = { line };
  // out() fills in the other of pod and podUID when one is known
  const raw =
    ref.pod === undefined && ref.podUID === undefined
      ? { type: 'log.raw', text, level, source, seq: 0, time, node, origin }
      : {
          type: 'log.raw',
          text,
          level,
          source,
          pod: ref.pod,
          podUID: ref.podUID,
          seq: 0,
          time,
          node,
          origin,
        };
  return raw as unknown as TraceEvent;
}
