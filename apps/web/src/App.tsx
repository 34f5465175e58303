/**
 * The shell: a top bar with the stream's connection state (or the replayed file), and the page the hash
 * route names. Live, the trace stream is opened here, once, for the whole app. In a replay no stream is
 * open and ReplayContext makes every query hook read the imported trace instead of the server.
 */
import { useEffect, useState } from 'react';
import { useNode } from './api/queries.ts';
import { useTraceStream } from './api/use-trace-stream.ts';
import { LogBanner } from './kubelet-log/LogBanner.tsx';
import { LogOpener } from './kubelet-log/LogOpener.tsx';
import type { ReplayStore } from './lib/replay.ts';
import { parseRoute, type Route } from './lib/route.ts';
import type { ConnectionState } from './lib/stream.ts';
import { ReplayContext } from './replay/context.ts';
import { NodeView } from './views/NodeView.tsx';
import { PodView } from './views/PodView.tsx';
import { TokenGate } from './views/TokenGate.tsx';

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

/** Owns the WebSocket: mounted only while live, so entering a replay closes it. */
function LiveConnection() {
  const connection = useTraceStream();
  return (
    <span className={`conn conn-${connection}`} data-testid="connection-state" data-state={connection}>
      {CONNECTION_TEXT[connection]}
    </span>
  );
}

function Shell({ onReplay, onExit }: { onReplay: (s: ReplayStore) => void; onExit: () => void }) {
  const route = useRoute();
  const node = useNode();
  return (
    <>
      <header className="topbar">
        <a className="brand" href="#/">
          syncscope
        </a>
        <span className="mono dim">{node.data?.nodeName ?? ''}</span>
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
              <LiveConnection />
            )
          }
        </ReplayContext.Consumer>
        <LogOpener onReplay={onReplay} />
      </header>
      <main>
        {route.view === 'pod' ? (
          <PodView key={`${route.namespace}/${route.name}`} namespace={route.namespace} name={route.name} />
        ) : (
          <NodeView node={node.data} onReplay={onReplay} />
        )}
      </main>
    </>
  );
}

export function App() {
  const [replay, setReplay] = useState<ReplayStore | null>(null);
  return (
    <ReplayContext.Provider value={replay}>
      <TokenGate />
      {/* A new key remounts every view, so no hook carries state from live into a replay or back. */}
      <Shell
        key={replay ? `replay-${replay.id}` : 'live'}
        onReplay={setReplay}
        onExit={() => setReplay(null)}
      />
    </ReplayContext.Provider>
  );
}
