/**
 * The shell: a top bar with the stream's connection state, and the page the hash route names. The trace
 * stream is opened here, once, for the whole app.
 */
import { useEffect, useState } from 'react';
import { useNode } from './api/queries.ts';
import { useTraceStream } from './api/use-trace-stream.ts';
import { parseRoute, type Route } from './lib/route.ts';
import type { ConnectionState } from './lib/stream.ts';
import { NodeView } from './views/NodeView.tsx';
import { PodView } from './views/PodView.tsx';

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

export function App() {
  const route = useRoute();
  const connection = useTraceStream();
  const node = useNode();
  return (
    <>
      <header className="topbar">
        <a className="brand" href="#/">
          syncscope
        </a>
        <span className="mono dim">{node.data?.nodeName ?? ''}</span>
        <span className={`conn conn-${connection}`} data-testid="connection-state" data-state={connection}>
          {CONNECTION_TEXT[connection]}
        </span>
      </header>
      <main>
        {route.view === 'pod' ? (
          <PodView key={`${route.namespace}/${route.name}`} namespace={route.namespace} name={route.name} />
        ) : (
          <NodeView node={node.data} />
        )}
      </main>
    </>
  );
}
