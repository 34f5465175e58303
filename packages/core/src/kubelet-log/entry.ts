/**
 * One kubelet log entry while it is read: its header line and the lines that continue it, and the functions that
 * decide what continues an entry and which pod a raw entry names. Used by KubeletLogParser only.
 */
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
