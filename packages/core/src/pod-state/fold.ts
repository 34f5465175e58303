import type { PodBackoffs } from './backoffs.ts';
import type { PodContainers } from './containers.ts';
import type {
  GraceState,
  PodSnapshot,
  ProbeState,
  Source,
  SyncErrorState,
  WorkerStateName,
} from './types.ts';

/** One pod's folded facts; ./snapshot.ts reads them into a PodSnapshot. */
export interface PodFold {
  uid: string;
  pod: string;
  node?: string;
  /** the pod's ADD is in the trace (so its restarts are all in it) */
  added?: Source;
  /** the time of its first PLEG event since that ADD: the pod's first relist (RULES.firstRelist) */
  firstPleg?: number;
  deleted?: { at: number; from: Source };
  removed: boolean;
  containers: PodContainers;
  backoffs: PodBackoffs;
  /** the newest status.update; `phaseBy`: its phase was worked out (an observer's), not read */
  status?: {
    phase?: string;
    reason?: string;
    from: Source;
    phaseBy?: { basis: 'inferred' | 'unknown'; why: string };
  };
  /** the worker's state: the newest worker.state, or one a termination's lines imply (rule set) */
  worker?: { state: WorkerStateName; since: number; from: Source; rule?: string };
  grace?: GraceState;
  /** the times of the pod's first and newest events */
  firstSeen: number;
  lastSeen: number;
  /** the newest sync that failed, and how many failed in a row (a sync that succeeds clears it) */
  syncError?: SyncErrorState;
  /** each container's probes' latest results, by `<container>/<probe>` */
  probes: Map<string, ProbeState>;
  /** seq of the newest event of this pod */
  seq: number;
  cached?: PodSnapshot;
}
