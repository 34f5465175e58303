/**
 * The pods panel: its heading with what it knows (loading, empty, live, stale, replay) and the table. The
 * table itself (PodsTable) says "No resources found." when the node has no pod, as kubectl does.
 */
import { usePods } from '../api/queries.ts';
import { useReplay } from '../replay/context.ts';
import { useConnection } from './connection.ts';
import { PanelState, type PanelStateName } from './PanelState.tsx';
import { PodsTable } from './PodsTable.tsx';

export function PodsPanel() {
  const count = usePods((l) => l.items.length);
  const replay = useReplay();
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
