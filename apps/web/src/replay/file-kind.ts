/**
 * What a file given to "replay a file" holds, told from its first bytes: a Syncscope trace (the node's NDJSON
 * export, one TraceEvent a line) or a kubelet log. The log is told by the importer's own line classifier
 * (core's kubelet-log classify): a klog header (`I1127 10:00:00.000000 …`, bare or behind a journald or syslog
 * prefix), klog's JSON (`{"ts":…,"msg":…}`), docker's json-file record of one, or a record of journald's export
 * or a log shipper carrying one. The trace is asked first, because an export of a replayed log carries the
 * log's lines inside its events. A gzip file is a log (a rotated kubelet.log.1.gz; a trace export is plain).
 * Reads at most HEAD_BYTES of the file, whatever its size.
 */
import { classify, utf16Of } from '@syncscope/core/kubelet-log';
import { checkTraceEvent } from '@syncscope/core/trace';

/** how much of a file's start is read to tell what it is */
const HEAD_BYTES = 64 * 1024;

type FileKind = 'kubelet-log' | 'trace';

/** The first whole lines of `head` (the last one dropped when the file goes on past it and it is not the only one). */
function headLines(head: Uint8Array, whole: boolean): string[] {
  const encoding = utf16Of(head) ?? 'utf-8';
  const text = new TextDecoder(encoding).decode(head);
  const lines = text.split('\n');
  // a first line longer than the head is read as far as it goes (its klog header is at its start)
  if (!whole && lines.length > 1) lines.pop();
  return lines;
}

/** Whether one of these lines is a kubelet's, as the log importer reads lines. */
function hasKubeletLine(lines: readonly string[]): boolean {
  for (const line of lines) {
    const c = classify(line);
    if (c.kind === 'klog' || c.kind === 'json') return true;
    if (c.kind === 'docker') {
      const inner = classify(c.log).kind;
      if (inner === 'klog' || inner === 'json') return true;
    }
  }
  return false;
}

/** Whether the first line that is not blank is a TraceEvent, as the trace import checks it. */
function startsAsTrace(lines: readonly string[]): boolean {
  const first = lines.find((l) => l.trim() !== '');
  if (first === undefined) return false;
  try {
    return checkTraceEvent(JSON.parse(first)) === undefined;
  } catch {
    return false;
  }
}

/** The kind of `head`, the first HEAD_BYTES (or fewer) of a file; `whole`: the file ends within them. */
export function kindOfHead(head: Uint8Array, whole: boolean): FileKind {
  if (head[0] === 0x1f && head[1] === 0x8b) return 'kubelet-log';
  const lines = headLines(head, whole);
  if (startsAsTrace(lines)) return 'trace';
  return hasKubeletLine(lines) ? 'kubelet-log' : 'trace';
}

/** The kind of `file`, read from its first HEAD_BYTES. */
export async function fileKind(file: Blob): Promise<FileKind> {
  const head = new Uint8Array(await file.slice(0, HEAD_BYTES).arrayBuffer());
  return kindOfHead(head, file.size <= HEAD_BYTES);
}
