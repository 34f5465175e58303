/**
 * Watch on the pod lists, as the apiserver serves it: `GET /api/v1/pods?watch=true`,
 * `GET /api/v1/namespaces/:ns/pods?watch=1` (any strconv.ParseBool spelling) and the legacy
 * `/api/v1/watch/...pods[/:name]` paths, with resourceVersion, timeoutSeconds, allowWatchBookmarks,
 * labelSelector and fieldSelector read through the query schemas of routes/params.ts. A preHandler hook
 * takes such a request before the list handler runs; any other request goes on untouched.
 *
 * The answer is a chunked `application/json` stream of WatchEvents, one a line (the object a Table of one row
 * when the Accept asks for a Table: kubectl's `get -w`, respond.ts):
 *   no resourceVersion, or "0" → ADDED for every pod that matches, then the changes;
 *   a resourceVersion          → what changed after it (PodVersions.changesSince), then the changes;
 *   older than the index holds → 410 Gone, reason Expired (the client lists again).
 * With selectors a pod that starts to match is ADDED and one that stops matching is DELETED, as the
 * apiserver's watch cache does. With allowWatchBookmarks a BOOKMARK carrying the newest version is sent every
 * BOOKMARK_MS and just before the timeout ends the stream.
 *
 * Caps: at most `maxStreams` watches at once and `maxStreamsPerAddress` from one address (the trace stream's
 * defaults; past them 429). A watcher that stops reading is dropped once HIGH_WATER_BYTES are queued for it
 * (it resumes from its last version). Every watch ends when the server closes (preClose).
 */
import type { Pod, Status } from '@syncscope/core/api';
import { MAX_TIMEOUT_MS } from '@syncscope/core/clock';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { READ_ROUTE } from '../access.ts';
import { addressKey } from '../limits.ts';
import { MAX_STREAMS, MAX_STREAMS_PER_ADDRESS } from '../routes/trace-stream.ts';
import { sendStatus, status } from '../status.ts';
import { boundToNode } from './pod-reads.ts';
import { tableEncoder } from './respond.ts';
import { podPrinter } from './table/pods.ts';
import { type PodChange, PodVersions } from './watch.ts';
import { readWatchFlag, readWatchQuery } from './watch-query.ts';
import { type PodPredicate, podSelector } from './watch-selector.ts';
import { startWatch } from './watch-stream.ts';

const WATCH_URLS = new Set(['/api/v1/pods', '/api/v1/namespaces/:ns/pods']);
/** The legacy watch paths every apiserver still serves: a watch without `?watch=`, one pod by its name. */
const LEGACY_WATCH_URLS = [
  '/api/v1/watch/pods',
  '/api/v1/watch/namespaces/:ns/pods',
  '/api/v1/watch/namespaces/:ns/pods/:name',
] as const;
for (const url of LEGACY_WATCH_URLS) WATCH_URLS.add(url);
const BOOKMARK_MS = 60_000;
/** The apiserver's --min-request-timeout: a watch without timeoutSeconds (or with 0) ends after this long. */
const DEFAULT_WATCH_SECONDS = 1800;
/** A BOOKMARK before the timeout ends the stream is sent this long ahead of it. */
const LAST_BOOKMARK_MS = 100;

interface WatchOptions {
  maxStreams?: number;
  maxStreamsPerAddress?: number;
  bookmarkMs?: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    podVersions: PodVersions;
  }
}

/**
 * How long a watch lasts: timeoutSeconds, or DEFAULT_WATCH_SECONDS when it is absent or 0 (the apiserver's
 * ListResource does the same). The apiserver puts no upper bound on it: a large value is a long watch. A Node
 * timer longer than MAX_TIMEOUT_MS (2^31 - 1 ms, about 24.8 days) fires at once, so the delay stops there.
 */
function watchTimeoutMs(timeoutSeconds: number | undefined): number {
  const seconds = timeoutSeconds || DEFAULT_WATCH_SECONDS;
  return Math.min(seconds * 1000, MAX_TIMEOUT_MS);
}

function expired(rv: number, oldest: number): Status {
  return status(410, 'Expired', `too old resource version: ${rv} (${oldest})`);
}

/** The line a change is sent as; the pod's JSON is made once per change and type, shared by watchers. */
const lines = new WeakMap<PodChange, Map<string, string>>();
function line(c: PodChange, type: string): string {
  let byType = lines.get(c);
  if (!byType) {
    byType = new Map();
    lines.set(c, byType);
  }
  let s = byType.get(type);
  if (s === undefined) {
    s = `{"type":"${type}","object":${JSON.stringify(c.pod)}}\n`;
    byType.set(type, s);
  }
  return s;
}

async function watchRoutes(app: FastifyInstance, opts: WatchOptions): Promise<void> {
  const { trace, engine, clock } = app.syncscope;
  // the pods as the API serves them: bound to this node (pod-reads.ts kubePod does the same for reads)
  const bound = <P extends Pod>(p: P) => boundToNode(p, engine.nodeInfo().nodeName);
  const versions = new PodVersions(trace, {
    getPods: () => engine.getPods().map(bound),
    getPodByUID: (uid) => {
      const p = engine.getPodByUID(uid);
      return p && bound(p);
    },
  });
  app.decorate('podVersions', versions);
  const maxStreams = opts.maxStreams ?? MAX_STREAMS;
  const maxPerAddress = opts.maxStreamsPerAddress ?? MAX_STREAMS_PER_ADDRESS;
  const bookmarkMs = opts.bookmarkMs ?? BOOKMARK_MS;
  const open = new Set<() => void>();
  const perAddress = new Map<string, number>();

  app.addHook('preClose', async () => {
    for (const end of [...open]) end();
  });
  app.addHook('onClose', async () => versions.close());

  app.addHook('preHandler', async (req: FastifyRequest, reply: FastifyReply) => {
    const url = req.routeOptions.url ?? '';
    if (req.method !== 'GET' || !WATCH_URLS.has(url)) return;
    const legacy = url.startsWith('/api/v1/watch/');
    const flag = readWatchFlag(req.query);
    if (flag.error) return sendStatus(reply, flag.error);
    if (!flag.value.watch && !legacy) return;
    const read = readWatchQuery(req.query);
    if (read.error) return sendStatus(reply, read.error);
    const q = read.value;
    const select = podSelector(q.labelSelector, q.fieldSelector);
    if (typeof select !== 'function') return sendStatus(reply, select);
    const rv = q.resourceVersion;
    const from = rv === undefined || rv === '' || rv === '0' ? undefined : Number(rv);
    const { ns, name } = req.params as { ns?: string; name?: string };
    const matches: PodPredicate = (p) =>
      (ns === undefined || p.metadata.namespace === ns) &&
      (name === undefined || p.metadata.name === name) &&
      select(p);
    const table = tableEncoder(req.headers.accept, q.includeObject, podPrinter, () => clock.now());
    if (table && typeof table !== 'function') return sendStatus(reply, table);
    const out = (c: PodChange, type: 'ADDED' | 'MODIFIED' | 'DELETED') =>
      table ? table(type, c.pod) : line(c, type);
    const initial = from === undefined ? undefined : versions.changesSince(from);
    if (initial === 'expired') return sendStatus(reply, expired(from as number, versions.horizon - 1));

    const addr = addressKey(req.socket.remoteAddress);
    const mine = perAddress.get(addr) ?? 0;
    if (open.size >= maxStreams || mine >= maxPerAddress) {
      const which = open.size >= maxStreams ? `${maxStreams} at once` : `${maxPerAddress} from one address`;
      return sendStatus(reply, status(429, 'TooManyRequests', `too many watches: at most ${which}`));
    }
    perAddress.set(addr, mine + 1);

    const { res, send, finish } = startWatch(reply, () => end());
    // the pods the client is known to have (those matching when its version was current)
    const held = new Set<string>();
    const deliver = (c: PodChange) => {
      const uid = c.pod.metadata.uid;
      const had = held.has(uid);
      const now = c.type !== 'DELETED' && matches(c.pod);
      if (now) held.add(uid);
      else held.delete(uid);
      if (now) send(out(c, had ? (c.type === 'ADDED' ? 'MODIFIED' : c.type) : 'ADDED'));
      else if (had) send(out(c, 'DELETED'));
    };
    const bookmark = () => {
      const rv = String(versions.listVersion());
      send(
        `{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"${rv}"}}}\n`,
      );
    };

    const timers: NodeJS.Timeout[] = [];
    let unsubscribe = () => {};
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      unsubscribe();
      for (const t of timers) clearTimeout(t);
      open.delete(end);
      const n = (perAddress.get(addr) ?? 1) - 1;
      if (n > 0) perAddress.set(addr, n);
      else perAddress.delete(addr);
      finish();
    };
    open.add(end);
    res.on('close', end);

    if (initial === undefined) {
      for (const pod of versions.current()) {
        if (!matches(pod)) continue;
        held.add(pod.metadata.uid);
        send(table ? table('ADDED', pod) : `{"type":"ADDED","object":${JSON.stringify(pod)}}\n`);
      }
    } else {
      for (const pod of versions.current()) if (matches(pod)) held.add(pod.metadata.uid);
      const changed = new Set(initial.map((c) => c.pod.metadata.uid));
      // a pod that changed after `from` is told as it is now; whether the client had it is unknown, so one
      // that matches is MODIFIED (ADDED if it is new) and one that no longer does is DELETED
      for (const c of initial) {
        const uid = c.pod.metadata.uid;
        if (c.type === 'DELETED') send(out(c, 'DELETED'));
        else if (matches(c.pod)) send(out(c, c.type));
        else if (c.type === 'MODIFIED') send(out(c, 'DELETED'));
        if (changed.has(uid) && !matches(c.pod)) held.delete(uid);
      }
    }
    if (ended) return;
    unsubscribe = versions.subscribe(deliver);
    const ms = watchTimeoutMs(q.timeoutSeconds);
    timers.push(setTimeout(end, ms));
    if (q.allowWatchBookmarks) {
      const every = setInterval(bookmark, bookmarkMs);
      timers.push(every);
      if (ms > LAST_BOOKMARK_MS) timers.push(setTimeout(bookmark, ms - LAST_BOOKMARK_MS));
    }
  });

  // the legacy paths: answered by the hook above, which always takes them
  for (const url of LEGACY_WATCH_URLS)
    app.get(url, READ_ROUTE, async () => {
      throw new Error(`${url} is served by the watch hook`);
    });
}

export default fp(watchRoutes, { name: 'syncscope-watch', dependencies: ['syncscope-context'] });
