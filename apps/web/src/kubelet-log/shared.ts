/**
 * A kubelet log shared through the server: shareLog posts it (the server parses and keeps it), loadSharedImport
 * reads it back as a replay. The server keeps its trace and its unread entries apart (the lines no family read
 * make no event there); they are merged back here into the stream the importer made, each unread entry as its
 * log.raw event in its place, every event numbered as in that stream, so the replay is the one the same file
 * opened in the page gives.
 */
import type { ImportSummary } from '@syncscope/core/kubelet-log';
import type { TraceEvent } from '@syncscope/core/trace';
import { authFetch } from '../api/auth.ts';
import type { ReplayStore } from '../lib/replay.ts';
import { serverLines } from './lines.ts';
import { logReplay } from './open.ts';

interface ImportMeta {
  id: string;
  name: string;
  size: number;
  created: string;
  summary: ImportSummary;
}

interface TracePage {
  items: TraceEvent[];
  next: number;
  newest: number;
}

/** A page of GET /api/v1/imports/{id}/raw: the log's unread entries as log.raw events, each after `after` events. */
interface RawItem {
  after: number;
  event: TraceEvent;
}
interface RawPage {
  items: RawItem[];
  next: number | null;
}

async function getJson<T>(path: string): Promise<T> {
  const res = await authFetch(path, { headers: { accept: 'application/json' } });
  const body = (await res.json().catch(() => undefined)) as { message?: string } | undefined;
  if (!res.ok) throw new Error(body?.message ?? `GET ${path}: ${res.status}`);
  return body as T;
}

/** A shared import read back from the server, page by page. */
export async function loadSharedImport(
  id: string,
  onProgress: (fraction: number) => void,
): Promise<ReplayStore> {
  const base = `/api/v1/imports/${encodeURIComponent(id)}`;
  const meta = await getJson<ImportMeta>(base);
  const raws: RawItem[] = [];
  for (let since: number | null = 0; since !== null; ) {
    const page: RawPage = await getJson<RawPage>(`${base}/raw?since=${since}&limit=50000`);
    for (const r of page.items) raws.push(r);
    since = page.next;
  }
  const events: TraceEvent[] = [];
  // the unread entries in their places among the trace's events, numbered as the log's whole stream
  let r = 0;
  const push = (ev: TraceEvent) => {
    ev.seq = events.length + 1;
    events.push(ev);
  };
  let since = 0;
  for (;;) {
    const page = await getJson<TracePage>(`${base}/trace?since=${since}&limit=50000`);
    for (const ev of page.items) {
      for (; r < raws.length && (raws[r] as RawItem).after < ev.seq; r++) push((raws[r] as RawItem).event);
      push(ev);
    }
    onProgress(page.newest > 0 ? page.next / page.newest : 1);
    if (page.items.length === 0 || page.next >= page.newest) break;
    since = page.next;
  }
  for (; r < raws.length; r++) push((raws[r] as RawItem).event);
  return logReplay(meta.name, { summary: meta.summary, lines: serverLines(id), all: events, sharedId: id });
}

/** POST /api/v1/imports with the log as text/plain: the server parses and keeps it; resolves with its id. */
export async function shareLog(file: Blob, name: string): Promise<string> {
  const res = await authFetch(`/api/v1/imports?name=${encodeURIComponent(name)}`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain', accept: 'application/json' },
    body: file,
  });
  const body = (await res.json().catch(() => undefined)) as { id?: string; message?: string } | undefined;
  if (!res.ok || !body?.id) throw new Error(body?.message ?? `the server answered ${res.status}`);
  return body.id;
}
