/**
 * The pods panel: its heading with what it knows (loading, empty, live, stale, replay) and the table. The
 * table itself (PodsTable) says "No resources found." when the node has no pod, as kubectl does. The rows
 * are the server's (GET /api/v1/node/rows); while the panel is shown, their stream keeps them current.
 */
import { useNodeRows } from '../api/queries.ts';
import { useNodeRowsStream } from '../api/use-node-rows-stream.ts';
import { useReplay } from '../replay/context.ts';
import { useConnection } from './connection.ts';
import { PanelState, type PanelStateName } from './PanelState.tsx';
import { PodsTable } from './PodsTable.tsx';

export function PodsPanel() {
  const count = useNodeRows((r) => r.list.length);
  const replay = useReplay();
  useNodeRowsStream(!replay && count.isSuccess);
  const { staleSince } = useConnection();
  let state: PanelStateName = 'live';
  if (replay) state = 'replay';
  else if (staleSince !== null) state = 'stale';
  else if (count.isPending) state = 'loading';
  else if (count.data === 0) state = 'empty';
  return (
    <section className="panel pods-panel" aria-labelledby="pods-title">
      <h2 id="pods-title">
        Pods <PanelState state={state} staleSince={staleSince} testId="pods-state" />
      </h2>
      <PodsTable />
    </section>
  );
}
