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
] as const;
