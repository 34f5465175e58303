/**
 * The pod page's first paint, shown while the page's own code (PodView: the history, the timeline, the
 * model's readings) is on its way: PodView's top as it first paints, from the server's row of the pod, in
 * the same places and under the same test ids, so nothing moves when PodView takes over. It also asks for
 * the pod's trace as soon as the row gives its UID, so the history's data and code arrive together.
 */
import { usePodRow } from '../api/pod-queries.ts';
import { usePodTrace } from '../api/queries.ts';
import { useEngineNow } from '../hooks/use-engine-now.ts';
import { AtStepBar } from '../pod/AtStepBar.tsx';
import { PodSummary } from '../pod/PodSummary.tsx';
import { RowSummary } from '../pod/RowSummary.tsx';
import { useKnownPod } from '../pod/use-known-pod.ts';
import '../pod/pod.css';

export function PodHead({ namespace, name }: { namespace: string; name: string }) {
  const known = useKnownPod(namespace, name);
  // the row stays here once the pod is in (PodView, which then shows the pod, is not)
  const row = usePodRow(namespace, name).data;
  const now = useEngineNow();
  usePodTrace(known.uid);
  const pod = known.gone ? undefined : known.pod;
  return (
    <>
      <p>
        <a href="#/">← node</a>
      </p>
      {!pod && !row && <p aria-busy="true">Loading the pod page…</p>}
      {known.uid && <AtStepBar at={null} />}
      <div className="pod-top">
        <div className="pod-facts">
          {pod && <PodSummary pod={pod} now={now} worker={null} />}
          {!pod && row && <RowSummary row={row} now={now} />}
        </div>
      </div>
    </>
  );
}
