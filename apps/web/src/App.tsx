/**
 * The shell: a top bar with the connection state (or the replayed file), and the page the hash route
 * names. Live, each page opens the streams it shows (the node page its rows and aggregates, a pod page
 * that pod's trace, opened here once its UID is known); their state together (stream-status.ts), with the
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
import { useTraceStream } from './api/use-trace-stream.ts';
import { FleetView } from './kubelet-log/FleetView.tsx';
import { LogBanner } from './kubelet-log/LogBanner.tsx';
import { LogOpener } from './kubelet-log/LogOpener.tsx';
import type { ReplayStore } from './lib/replay.ts';
import { parseRoute, type Route } from './lib/route.ts';
import type { ConnectionState } from './lib/stream.ts';
import { type Connection, ConnectionContext, nextConnection, useConnection } from './node/connection.ts';
import { clockText } from './node/liveness.ts';
import { useKnownPod } from './pod/use-known-pod.ts';
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

/**
 * A pod page's trace, live: that pod's events once its UID is known (from the pods list, or the trace);
 * every event while the list has answered without the pod (its UID is looked for in the recent trace).
 */
function PodTraceStream({ namespace, name }: { namespace: string; name: string }) {
  const known = useKnownPod(namespace, name);
  useTraceStream(known.uid !== undefined || !known.loading, known.uid);
  return null;
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
      {route.view === 'pod' && !replay && (
        <PodTraceStream
          key={`${route.namespace}/${route.name}`}
          namespace={route.namespace}
          name={route.name}
        />
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
