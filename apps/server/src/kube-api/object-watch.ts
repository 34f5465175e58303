/**
 * Watch for the resources besides pods (events, nodes, namespaces), as the apiserver serves it: `?watch=`
 * (any strconv.ParseBool spelling) on a list path, or the legacy `/api/v1/watch/...` path, answers a chunked
 * stream of WatchEvents, one a line (Tables of one row when the Accept asks for them, respond.ts), with
 * labelSelector, fieldSelector, timeoutSeconds and allowWatchBookmarks read as the lists read them.
 *
 * A WatchSource says what the objects are now and what a trace event changed (`changes`, called for every
 * trace event while a watcher of the resource is open, and only then). What the client gets first:
 *   no resourceVersion, or "0" → ADDED for every object that matches;
 *   a resourceVersion          → MODIFIED for each matching object whose resourceVersion is newer.
 * Then every change. Caps as the pod watch's (at most `maxStreams` at once per resource, 429 past it); a
 * watcher that stops reading is dropped past HIGH_WATER_BYTES; every watch ends when the server closes.
 */
import type { ObjectMeta } from '@syncscope/core/api';
import { MAX_TIMEOUT_MS } from '@syncscope/core/clock';
import type { TraceEvent } from '@syncscope/core/trace';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { READ_ROUTE } from '../access.ts';
import { MAX_STREAMS } from '../routes/trace-stream.ts';
import { badRequest, sendStatus, status } from '../status.ts';
import { fieldsMatch, parseFieldSelector } from './field-selector.ts';
import { labelsMatch, parseLabelSelector } from './label-selector.ts';
import { type ListSpec, plainLine, tableEncoder, type WatchType } from './respond.ts';
import { readWatchFlag, readWatchQuery } from './watch-query.ts';
import { startWatch } from './watch-stream.ts';

const DEFAULT_WATCH_SECONDS = 1800;
const BOOKMARK_MS = 60_000;

export interface WatchChange<T> {
  type: WatchType;
  obj: T;
}

export interface WatchSource<T extends { metadata: ObjectMeta }> {
  kind: string;
  spec: ListSpec<T>;
  /** The list paths `?watch=` applies to, and the legacy watch paths (their `:ns` and `:name` select). */
  urls: readonly string[];
  legacyUrls: readonly string[];
  /** Every object now, as served (each with its resourceVersion). */
  list(): T[];
  /** What trace event `ev` changed; called right after it is recorded, while a watcher is open. */
  changes(ev: TraceEvent): WatchChange<T>[];
  /** Called when the first watcher opens, before any `changes`. */
  start?(): void;
}

/**
 * Serves watches of `source` on its list and legacy paths (registers the legacy routes and the hook that
 * takes a watch before the list handler). `subscribe` is the trace's.
 */
export function serveWatch<T extends { metadata: ObjectMeta }>(
  app: FastifyInstance,
  source: WatchSource<T>,
  subscribe: (listener: (ev: TraceEvent) => void) => () => void,
  now: () => number,
  maxStreams = MAX_STREAMS,
): void {
  const urls = new Set([...source.urls, ...source.legacyUrls]);
  const watchers = new Set<(c: WatchChange<T>) => void>();
  const open = new Set<() => void>();
  let unsubscribe: (() => void) | undefined;
  const onTrace = (ev: TraceEvent) => {
    for (const c of source.changes(ev)) for (const w of watchers) w(c);
  };

  app.addHook('preClose', async () => {
    for (const end of [...open]) end();
  });

  app.addHook('preHandler', async (req: FastifyRequest, reply: FastifyReply) => {
    const url = req.routeOptions.url ?? '';
    if (req.method !== 'GET' || !urls.has(url)) return;
    const flag = readWatchFlag(req.query);
    if (flag.error) return sendStatus(reply, flag.error);
    if (!flag.value.watch && !source.legacyUrls.includes(url)) return;
    const read = readWatchQuery(req.query);
    if (read.error) return sendStatus(reply, read.error);
    const q = read.value;
    const labels = parseLabelSelector(q.labelSelector ?? '');
    if (!labels.ok) return sendStatus(reply, badRequest(labels.message));
    const fields = parseFieldSelector(q.fieldSelector ?? '', source.spec.fieldLabels);
    if (!fields.ok) return sendStatus(reply, badRequest(fields.message));
    const { ns, name } = req.params as { ns?: string; name?: string };
    const matches = (o: T) =>
      (ns === undefined || o.metadata.namespace === ns) &&
      (name === undefined || o.metadata.name === name) &&
      labelsMatch(labels.value, o.metadata.labels) &&
      fieldsMatch(fields.value, (f) => source.spec.fieldOf(o, f));
    const table = tableEncoder(req.headers.accept, q.includeObject, source.spec.printer, now);
    if (table && typeof table !== 'function') return sendStatus(reply, table);
    const encode = table ?? plainLine;
    if (open.size >= maxStreams)
      return sendStatus(
        reply,
        status(429, 'TooManyRequests', `too many watches: at most ${maxStreams} at once`),
      );

    const { res, send, finish } = startWatch(reply, () => end());
    const timers: NodeJS.Timeout[] = [];
    let ended = false;
    const watcher = (c: WatchChange<T>) => {
      if (matches(c.obj)) send(encode(c.type, c.obj));
    };
    const end = () => {
      if (ended) return;
      ended = true;
      watchers.delete(watcher);
      if (watchers.size === 0) {
        unsubscribe?.();
        unsubscribe = undefined;
      }
      for (const t of timers) clearTimeout(t);
      open.delete(end);
      finish();
    };
    open.add(end);
    res.on('close', end);

    const rv = q.resourceVersion;
    const from = rv === undefined || rv === '' || rv === '0' ? undefined : Number(rv);
    for (const o of source.list()) {
      if (!matches(o)) continue;
      if (from === undefined) send(encode('ADDED', o));
      else if (Number(o.metadata.resourceVersion ?? 0) > from) send(encode('MODIFIED', o));
    }
    if (ended) return;
    watchers.add(watcher);
    if (!unsubscribe) {
      source.start?.();
      unsubscribe = subscribe(onTrace);
    }
    const seconds = q.timeoutSeconds || DEFAULT_WATCH_SECONDS;
    timers.push(setTimeout(end, Math.min(seconds * 1000, MAX_TIMEOUT_MS)));
    if (q.allowWatchBookmarks) {
      const bookmark = () => {
        const version = source.list()[0]?.metadata.resourceVersion ?? '0';
        send(
          `{"type":"BOOKMARK","object":{"kind":"${source.kind}","apiVersion":"v1","metadata":{"resourceVersion":"${version}"}}}\n`,
        );
      };
      timers.push(setInterval(bookmark, BOOKMARK_MS));
    }
  });

  for (const url of source.legacyUrls)
    app.get(url, READ_ROUTE, async () => {
      throw new Error(`${url} is served by the watch hook`);
    });
}

/**
 * `changes` and `start` for a resource whose objects are cheap to list (the Node, the namespaces): the
 * objects now, compared by content (resourceVersion aside, and what `volatile` strips) with those of the
 * last call or of `start`, keyed by namespace and name.
 */
export function listDiffer<T extends { metadata: ObjectMeta }>(
  list: () => T[],
  volatile: (obj: T) => T = (obj) => obj,
): { changes(): WatchChange<T>[]; start(): void } {
  let known = new Map<string, { json: string; obj: T }>();
  const snapshot = () => {
    const m = new Map<string, { json: string; obj: T }>();
    for (const obj of list()) {
      const { resourceVersion: _rv, ...meta } = obj.metadata;
      const json = JSON.stringify({ ...volatile(obj), metadata: meta });
      m.set(`${obj.metadata.namespace ?? ''}/${obj.metadata.name}`, { json, obj });
    }
    return m;
  };
  const changes = () => {
    const before = known;
    const now = snapshot();
    known = now;
    const out: WatchChange<T>[] = [];
    for (const [k, v] of now) {
      const old = before.get(k);
      if (!old) out.push({ type: 'ADDED', obj: v.obj });
      else if (old.json !== v.json) out.push({ type: 'MODIFIED', obj: v.obj });
    }
    for (const [k, v] of before) if (!now.has(k)) out.push({ type: 'DELETED', obj: v.obj });
    return out;
  };
  return {
    changes,
    start: () => {
      known = snapshot();
    },
  };
}
