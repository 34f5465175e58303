/**
 * The actions of one SyncPod, as the kubelet's SyncResult names them (pkg/kubelet/container/sync_result.go).
 * A plain list, so that code reading kubelet logs can know them without loading the trace schema.
 */
export const SYNC_ACTION_NAMES = [
  'StartContainer',
  'KillContainer',
  'CreatePodSandbox',
  'ConfigPodSandbox',
  'KillPodSandbox',
  'SetupNetwork',
  'TeardownNetwork',
  'InitContainer',
  // v1.33+: an in-place resize, and a container removed before all of a pod's restart (RestartAllContainers)
  'ResizePodInPlace',
  'RemoveContainer',
] as const;
