/**
 * The lines of the sync path that need more than one key or a choice of message: PLEG events, the sync
 * functions' exits and the sync error, probes. Called by kubeletLogLines only (writer.ts); pure.
 */
import type { TraceOf, WorkType } from '../events/trace.ts';
import { goQuote, type KlogValue } from './format.ts';
import { SOURCES } from './sources.ts';

export type Pairs = (readonly [string, KlogValue | undefined])[];
/** Writes one line when its level n is within the writer's -v. */
export type At = (
  n: number,
  severity: 'I' | 'E',
  source: string,
  msg: string,
  pairs?: Pairs,
  time?: number,
) => void;

export const WORK_TYPE_WORD: Record<WorkType, string> = {
  SyncPod: 'sync',
  TerminatingPod: 'terminating',
  TerminatedPod: 'terminated',
};
export const SYNC_FN: Record<WorkType, 'SyncPod' | 'SyncTerminatingPod' | 'SyncTerminatedPod'> = {
  SyncPod: 'SyncPod',
  TerminatingPod: 'SyncTerminatingPod',
  TerminatedPod: 'SyncTerminatedPod',
};

export function plegLines(ev: TraceOf<'pleg.event'>, at: At): void {
  if (ev.event === 'ContainerDied' && ev.exitCode !== undefined)
    at(2, 'I', SOURCES.containerFinished, 'Generic (PLEG): container finished', [
      ['podID', ev.podUID],
      ['containerID', ev.containerID],
      ['exitCode', ev.exitCode],
    ]);
  if (ev.event === 'ContainerRemoved') {
    // not worth a sync (isSyncPodWorthy): only the relist's own -v=4 line shows it
    at(4, 'I', SOURCES.genericPleg, 'GenericPLEG', [
      ['podUID', ev.podUID],
      ['containerID', ev.containerID],
      ['oldState', 'exited'],
      ['newState', 'non-existent'],
    ]);
    return;
  }
  at(2, 'I', SOURCES.plegEvent, 'SyncLoop (PLEG): event for pod', [
    ['pod', ev.pod],
    ['event', { ID: ev.podUID, Type: ev.event, Data: ev.containerID }],
  ]);
}

export function syncResultLines(ev: TraceOf<'sync.result'>, at: At): void {
  const ref: Pairs = [
    ['pod', ev.pod],
    ['podUID', ev.podUID],
  ];
  const fn = SYNC_FN[ev.workType];
  const src =
    ev.workType === 'SyncPod'
      ? SOURCES.syncPodExit
      : ev.workType === 'TerminatingPod'
        ? SOURCES.syncTerminatingExit
        : SOURCES.syncTerminatedExit;
  at(
    4,
    'I',
    src,
    `${fn} exit`,
    ev.workType === 'SyncPod' ? [...ref, ['isTerminal', ev.isTerminal ?? false]] : ref,
  );
  if (ev.error === undefined) return;
  if (ev.error === 'context canceled')
    at(2, 'I', SOURCES.canceled, 'Sync exited with context cancellation error', [
      ...ref,
      ['updateType', WORK_TYPE_WORD[ev.workType]],
    ]);
  else at(0, 'E', SOURCES.syncError, 'Error syncing pod, skipping', [['err', kubeletSyncError(ev)], ...ref]);
}

/**
 * The sync error as the kubelet's PodSyncResult.Error() prints it: each failed SyncResult as
 * `failed to "<action>" for "<target>" with <Reason>: "<message>"` (action, target and message Go-quoted),
 * several as an aggregate `[a, b]`; "failed to SyncPod: " only before an error outside the results. The
 * engine's error text is kept as it is when it says more than its results.
 */
export function kubeletSyncError(ev: TraceOf<'sync.result'>): string {
  const failed = ev.actions.filter((a) => a.error);
  if (failed.length === 0 || ev.error === undefined) return ev.error ?? '';
  const plain = failed.map(
    (a) => `failed to "${a.action}" for "${a.target}" with ${a.error}: "${a.message ?? ''}"`,
  );
  const engine = `failed to SyncPod: ${plain.length === 1 ? plain[0] : `[${plain.join(', ')}]`}`;
  if (ev.error !== engine) return ev.error;
  const parts = failed.map(
    (a) =>
      `failed to ${goQuote(a.action)} for ${goQuote(a.target)} with ${a.error}: ${goQuote(a.message ?? '')}`,
  );
  return parts.length === 1 ? (parts[0] as string) : `[${parts.join(', ')}]`;
}

export function probeLines(ev: TraceOf<'probe.result'>, at: At): void {
  const pairs: Pairs = [
    ['probeType', ev.probe],
    ['pod', ev.pod],
    ['podUID', ev.podUID],
    ['containerName', ev.container],
  ];
  if (ev.result === 'Success') at(3, 'I', SOURCES.probeSucceeded, 'Probe succeeded', pairs);
  else if (ev.result === 'Failure')
    at(1, 'I', SOURCES.probeFailed, 'Probe failed', [
      ...pairs,
      ['probeResult', 'failure'],
      ['output', ev.output ?? ''],
    ]);
  else
    at(1, 'I', SOURCES.probeUnknown, 'Probe unknown without error', [...pairs, ['probeResult', 'unknown']]);
}
