/**
 * The kubelet's rules the reducer infers by, in words: what an `inferred` fact's `rule` says. Each names the
 * kubelet code it follows (kubelet v1.32; kubectl's printPod for the STATUS word).
 */
export const RULES = {
  running: 'a ContainerStarted PLEG event: the runtime reports the container running',
  terminated:
    'a ContainerDied PLEG event: the container exited; its reason from the exit code as the runtime gives it (0 Completed, else Error)',
  startedBeforeDeath:
    'the log shows the container dying without a start: it ran between two relists (an inferred ContainerStarted)',
  lastState:
    "the previous instance's termination becomes LastTerminationState (convertToAPIContainerStatuses)",
  restartCount:
    'restart count = starts after the first (each start writes restartCount+1 on the new instance)',
  restartPair:
    'a start after a death in the pod restarts the dead container (the kubelet starts a container again only after it died)',
  firstRelist:
    "no start in the pod's first relist restarts anything: the kubelet restarts a container only after a relist (or a sync's status read) showed it dead, and none has before; the pod sandbox's start is among them (the generic PLEG lists sandboxes after containers)",
  restartsSinceStatus: "restart count = the last stated status's count + starts since",
  restartsSum: "kubectl's RESTARTS: the sum of the containers' restart counts",
  crashLoop:
    'CrashLoopBackOff from a back-off line: the StartContainer error the reason cache holds until the next start (Waiting reason)',
  syncError:
    "the sync's StartContainer error, held by the reason cache until the next start, is the Waiting reason",
  reasonCleared: "a successful StartContainer clears the reason cache: the runtime's state shows again",
  backoffName:
    'the back-off line (or a kill, or a sync error) names the container whose death or start the log gives only by ID',
  initOrder:
    'init containers run one at a time, each exiting 0 before the next is created, and the regular ones after the last (computeInitContainerActions): a container that exited 0 before every later container of the pod was created ran as an init container',
  notReady: 'a container that is not running is not ready',
  observedBackoff:
    "CrashLoopBackOff while the back-off window the kubelet's rule gives from the exits the runtime showed is open (the runtime shows only the exit)",
  observedReady: 'no readiness or startup probe in the pod spec: ready once running',
  observedPhase: 'getPhase over the container states the runtime shows',
  readiness: "ready from the container's latest readiness probe result",
  phaseRunning:
    'getPhase: a container running (or restarting under restartPolicy Always) makes the pod Running',
  phaseTerminal:
    'getPhase for a terminal pod (its worker past syncTerminatingPod, every container stopped): Succeeded when each exited 0, else Failed',
  phasePending: 'getPhase: a pod the kubelet added whose containers have not started is Pending',
  creating:
    "a pod added whose containers have not started: each waits as ContainerCreating (convertToAPIContainerStatuses' default; PodInitializing if it has init containers, which a log does not show)",
  noStartYet: 'no container of the pod has started since it was added: no restarts',
  statusWord: "kubectl's printPod over the container states",
  terminating:
    'kubectl prints Terminating for a pod with a deletionTimestamp (a DELETE) not yet Succeeded/Failed',
  readyCount: "kubectl's READY: running and ready containers of all the status lists",
  workerSyncing: 'a pod the kubelet added and not asked to terminate: its worker syncs it (SyncPod)',
  workerTerminating:
    "a kill of a deleted or removed pod's container: the worker runs syncTerminatingPod, which stops every container within the grace period (TerminatingPod)",
  workerTerminated:
    'every container seen running has died since the termination began: syncTerminatingPod returned (TerminatedPod)',
  workerFinished:
    'REMOVE once every container stopped: the pod is gone from the config, syncTerminatedPod ran and the worker finished (Finished)',
  graceDeadline:
    "the first kill's time plus the grace period it sent: after it the runtime stops what still runs (killContainer's timeout)",
} as const;

/** The terminated reason a runtime gives an exit code (containerd and CRI-O: 0 Completed, else Error). */
export function exitReason(exitCode: number | undefined): string | undefined {
  if (exitCode === undefined) return undefined;
  return exitCode === 0 ? 'Completed' : 'Error';
}
