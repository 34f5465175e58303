import type { PodBackoffs } from './backoffs.ts';
import type { PodContainers } from './containers.ts';
import type { PodSnapshot, Source } from './types.ts';

/** One pod's folded facts; ./snapshot.ts reads them into a PodSnapshot. */
export interface PodFold {
  uid: string;
  pod: string;
  node?: string;
  /** the pod's ADD is in the trace (so its restarts are all in it) */
  added?: Source;
  deleted?: { at: number; from: Source };
  removed: boolean;
  containers: PodContainers;
  backoffs: PodBackoffs;
  status?: { phase?: string; reason?: string; from: Source };
  /** seq of the newest event of this pod */
  seq: number;
  cached?: PodSnapshot;
}
