/**
 * The node page — what is the loop doing right now: runtime and PLEG health (with the page's h1 and the
 * red line of a stalled loop), the sync loop as a live strip of iterations by source, the housekeeping
 * cadence, the pods table (kubectl's strings; a row opens the pod's page), the recently deleted pods, and
 * the actions: apply a manifest, inject faults on the simulated node, export and replay a trace. In a
 * replay the same panels read the imported trace and the actions that need a server hide; so do apply,
 * delete and faults when the server observes a node's kubelet (NodeInfo.observing).
 *
 * What the page reads comes from the server already cut to size: the table's rows and the node's aggregates
 * (loop strip, cadence, deleted pods), each a small first request and then a stream of its changes at most
 * four times a second; the trace itself only as a tail fetched when asked (the trace panel).
 *
 * Layout (node.css): one column up to 1100 px; the pods table full width below the strip up to 1600 px;
 * from 1600 px two columns, the strip and table on the left, the cadence and the side panels on the right.
 */
import type { NodeInfo } from '@syncscope/core/kubelet/configuration';
import { lazy, Suspense } from 'react';
import { useNodeAggregates } from '../api/queries.ts';
import { useNodeAggregatesStream } from '../api/use-node-aggregates-stream.ts';
import type { ReplayStore } from '../lib/replay.ts';
import { ApplyPanel } from '../node/ApplyPanel.tsx';
import { FaultPanel } from '../node/FaultPanel.tsx';
import { ForeignPods } from '../node/ForeignPods.tsx';
import { HealthPanel } from '../node/Health.tsx';
import { HousekeepingCadence } from '../node/HousekeepingCadence.tsx';
import { LoopStrip } from '../node/LoopStrip.tsx';
import { PodsPanel } from '../node/PodsPanel.tsx';
import { RecentlyDeleted } from '../node/RecentlyDeleted.tsx';
import { TracePanel } from '../node/TracePanel.tsx';
import { useReplay } from '../replay/context.ts';
import '../node/node.css';

export { statusTone } from '../node/status-tone.ts';

/** A kubelet log's unread lines: its code comes with the log, not with the live page's first load. */
const RawLines = lazy(() => import('../kubelet-log/RawLines.tsx').then((m) => ({ default: m.RawLines })));

const fetched = () => true;

export function NodeView({
  node,
  onReplay,
}: {
  node: NodeInfo | undefined;
  onReplay: (store: ReplayStore) => void;
}) {
  const replay = useReplay();
  const aggregates = useNodeAggregates(fetched);
  useNodeAggregatesStream(!replay && aggregates.isSuccess);
  // observe mode: this server changes nothing, so nothing that would is offered
  const observing = node?.observing !== undefined;
  return (
    <div className="node-page">
      <div className="area-health">
        <HealthPanel node={node} />
      </div>
      <div className="area-loop">
        <LoopStrip node={node} />
      </div>
      <div className="area-pods">
        <PodsPanel />
        {replay?.log && (
          <Suspense fallback={null}>
            <RawLines replay={replay} />
          </Suspense>
        )}
      </div>
      <div className="area-cadence">
        <HousekeepingCadence node={node} />
      </div>
      <div className="area-side">
        <RecentlyDeleted />
        {!replay && <ForeignPods />}
        {!replay && !observing && <FaultPanel />}
        {!replay && !observing && <ApplyPanel />}
        <TracePanel onReplay={onReplay} />
      </div>
    </div>
  );
}
