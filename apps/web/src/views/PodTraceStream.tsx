/**
 * A pod page's trace, live: that pod's events once its UID is known (from its row, the pod, or the trace);
 * every event while the pod has answered without being found (its UID is looked for in the recent trace).
 * Mounted by the shell beside the pod's page once the page has settled (its first screen, the header and
 * the history, comes over plain requests): a chunk of its own, since it checks every event it is sent
 * against the trace's schemas.
 */
import { useTraceStream } from '../api/use-trace-stream.ts';
import { useKnownPod } from '../pod/use-known-pod.ts';

export function PodTraceStream({ namespace, name }: { namespace: string; name: string }) {
  const known = useKnownPod(namespace, name);
  useTraceStream(known.uid !== undefined || !known.loading, known.uid);
  return null;
}
