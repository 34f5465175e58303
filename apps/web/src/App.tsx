/**
 * The shell: a top bar with the connection state (or the replayed file), and the page the hash route
 * names. Live, each page opens the streams it shows (the node page its rows and aggregates, a pod page
 * that pod's trace, opened here once the page has settled); their state together (stream-status.ts), with the
 * time it stopped being live, is provided to the views through ConnectionContext. In a replay no stream
 * is open and ReplayContext makes every query hook read the imported trace instead of the server.
 */
import {
  lazy,
  type ReactNode,
  Suspense,
  startTransition,
  useCallback,
  useEffect,
  useRef,
  useState,
} from 'react';
import { useNode } from './api/queries.ts';
import { useStreamsState } from './api/stream-status.ts';
import { usePageSettled } from './hooks/use-page-settled.ts';
import type { ReplayStore } from './lib/replay.ts';
import { parseRoute, type Route } from './lib/route.ts';
import type { ConnectionState } from './lib/stream.ts';
import { type Connection, ConnectionContext, nextConnection, useConnection } from './node/connection.ts';
import { clockText } from './node/liveness.ts';
import { ReplayContext, useReplay } from './replay/context.ts';
import { NodeView } from './views/NodeView.tsx';
import { PodHead } from './views/PodHead.tsx';
import { TokenGate } from './views/TokenGate.tsx';
import './tokens.css';

/**
 * The first chunk holds what the node page's first rows and a pod page's header need, nothing more. The
 * pod page is its own chunk (the timeline, the step-through, the model's readings), painted from the pod's
 * row (PodHead) until it arrives. The log opener (with the replay's reducer) is a small chunk of its own,
 * on a pod's page asked for once the page has settled (the pod's trace and code come first);
 * the pod's trace stream (its checks of every event carry the trace's schemas) opens once the page has
 * settled; a kubelet log's views come with the log.
 */
const PodView = lazy(() => import('./views/PodView.tsx').then((m) => ({ default: m.PodView })));
const PodTraceStream = lazy(() =>
  import('./views/PodTraceStream.tsx').then((m) => ({ default: m.PodTraceStream })),
);
const LogOpener = lazy(() => import('./kubelet-log/LogOpener.tsx').then((m) => ({ default: m.LogOpener })));
const LogBanner = lazy(() => import('./kubelet-log/LogBanner.tsx').then((m) => ({ default: m.LogBanner })));
const FleetView = lazy(() => import('./kubelet-log/FleetView.tsx').then((m) => ({ default: m.FleetView })));

function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onHash = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  return route;
}

const CONNECTION_TEXT: Record<ConnectionState, string> = {
  connecting: 'connecting…',
  live: 'live',
  reconnecting: 'reconnecting…',
};

/**
 * The connection of a live page: mounted only while live. Remembers when the page's streams stopped being
 * live (after they had been), so the badge and every panel can say since when they are stale; a page
 * change, whose new streams are still connecting, is not a loss.
 */
function LiveStream({ children }: { children: ReactNode }) {
  const state = useStreamsState();
  const [connection, setConnection] = useState<Connection>({ state, staleSince: null });
  const wasLive = useRef(false);
  useEffect(() => {
    if (state === 'live') wasLive.current = true;
    setConnection((prev) => nextConnection(prev, state, wasLive.current, Date.now()));
  }, [state]);
  return <ConnectionContext.Provider value={connection}>{children}</ConnectionContext.Provider>;
}

/** The badge: green while live; grey with the time it went stale once the stream is lost. */
function ConnectionBadge() {
  const { state, staleSince } = useConnection();
  if (state === 'replay') return null;
  const stale = staleSince !== null;
  return (
    <span
      className={`conn ${stale ? 'conn-stale' : `conn-${state}`}`}
      data-testid="connection-state"
      data-state={state}
      data-stale={String(stale)}
      role="status"
    >
      {stale
        ? `stale since ${clockText(staleSince)} · ${CONNECTION_TEXT[state as ConnectionState]}`
        : CONNECTION_TEXT[state as ConnectionState]}
    </span>
  );
}

function Shell({ onReplay, onExit }: { onReplay: (s: ReplayStore) => void; onExit: () => void }) {
  const replay = useReplay();
  const page = <Page onReplay={onReplay} onExit={onExit} />;
  return replay ? page : <LiveStream>{page}</LiveStream>;
}

function Page({ onReplay, onExit }: { onReplay: (s: ReplayStore) => void; onExit: () => void }) {
  const route = useRoute();
  const node = useNode();
  const replay = useReplay();
  const stale = useConnection().staleSince !== null;
  const settled = usePageSettled();
  return (
    <>
      {route.view === 'pod' && !replay && settled && (
        <Suspense fallback={null}>
          <PodTraceStream
            key={`${route.namespace}/${route.name}`}
            namespace={route.namespace}
            name={route.name}
          />
        </Suspense>
      )}
      <header className="topbar">
        <a className="brand" href="#/">
          syncscope
        </a>
        <span className="mono dim topbar-node" title={node.data?.nodeName}>
          {node.data?.nodeName ?? ''}
        </span>
        <ReplayContext.Consumer>
          {(replay) =>
            replay?.log ? (
              <Suspense fallback={null}>
                <LogBanner replay={replay} onReplay={onReplay} onExit={onExit} />
              </Suspense>
            ) : replay ? (
              <span className="conn conn-replay" data-testid="replay-banner">
                replay: {replay.name} ({replay.trace.events.length} events){' '}
                <button type="button" className="small" onClick={onExit} data-testid="replay-exit">
                  back to live
                </button>
              </span>
            ) : (
              <ConnectionBadge />
            )
          }
        </ReplayContext.Consumer>
        {(settled || route.view !== 'pod') && (
          <Suspense fallback={null}>
            <LogOpener onReplay={onReplay} />
          </Suspense>
        )}
      </header>
      <main data-stale={stale || undefined}>
        {route.view === 'pod' ? (
          <Suspense
            key={`${route.namespace}/${route.name}`}
            fallback={<PodHead namespace={route.namespace} name={route.name} />}
          >
            <PodView namespace={route.namespace} name={route.name} />
          </Suspense>
        ) : route.view === 'nodes' && replay?.log ? (
          <Suspense fallback={null}>
            <FleetView replay={replay} onReplay={onReplay} />
          </Suspense>
        ) : (
          <NodeView node={node.data} onReplay={onReplay} />
        )}
      </main>
    </>
  );
}

export function App() {
  const [replay, setReplay] = useState<ReplayStore | null>(null);
  // a replay's first render (every view of a large log) is a transition: React renders it in slices between
  // frames, so the page keeps painting while it builds
  const openReplay = useCallback((s: ReplayStore) => startTransition(() => setReplay(s)), []);
  return (
    <ReplayContext.Provider value={replay}>
      <TokenGate />
      {/* A new key remounts every view, so no hook carries state from live into a replay or back. */}
      <Shell
        key={replay ? `replay-${replay.id}` : 'live'}
        onReplay={openReplay}
        onExit={() => setReplay(null)}
      />
    </ReplayContext.Provider>
  );
}
