/**
 * The shell: a top bar with the stream's connection state (or the replayed file), and the page the hash
 * route names. Live, the trace stream is opened here, once, for the whole app, and its state (with the time
 * it stopped being live) is provided to the views through ConnectionContext. In a replay no stream is
 * open and ReplayContext makes every query hook read the imported trace instead of the server.
 */
import { lazy, type ReactNode, Suspense, startTransition, useCallback, useEffect, useState } from 'react';
import { useNode } from './api/queries.ts';
import { useTraceStream } from './api/use-trace-stream.ts';
import { FleetView } from './kubelet-log/FleetView.tsx';
import { LogBanner } from './kubelet-log/LogBanner.tsx';
import { LogOpener } from './kubelet-log/LogOpener.tsx';
import type { ReplayStore } from './lib/replay.ts';
import { parseRoute, type Route } from './lib/route.ts';
import type { ConnectionState } from './lib/stream.ts';
import { type Connection, ConnectionContext, useConnection } from './node/connection.ts';
import { clockText } from './node/liveness.ts';
import { ReplayContext, useReplay } from './replay/context.ts';
import { NodeView } from './views/NodeView.tsx';
import { TokenGate } from './views/TokenGate.tsx';
import './tokens.css';

/**
 * The pod page is its own chunk: the node page (the first one most loads open) does not parse the timeline
 * and step-through code before it can show the pods.
 */
const PodView = lazy(() => import('./views/PodView.tsx').then((m) => ({ default: m.PodView })));

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
 * Owns the WebSocket: mounted only while live, so entering a replay closes it. Remembers when the stream
 * stopped being live (after it had been), so the badge and every panel can say since when they are stale.
 */
function LiveStream({ children }: { children: ReactNode }) {
  const state = useTraceStream();
  const [connection, setConnection] = useState<Connection>({ state, staleSince: null });
  useEffect(() => {
    setConnection((prev) => ({
      state,
      staleSince: state === 'live' ? null : (prev.staleSince ?? (prev.state === 'live' ? Date.now() : null)),
    }));
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
  return (
    <>
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
              <LogBanner replay={replay} onReplay={onReplay} onExit={onExit} />
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
        <LogOpener onReplay={onReplay} />
      </header>
      <main data-stale={stale || undefined}>
        {route.view === 'pod' ? (
          <Suspense fallback={<p aria-busy="true">Loading the pod page…</p>}>
            <PodView key={`${route.namespace}/${route.name}`} namespace={route.namespace} name={route.name} />
          </Suspense>
        ) : route.view === 'nodes' && replay?.log ? (
          <FleetView replay={replay} onReplay={onReplay} />
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
