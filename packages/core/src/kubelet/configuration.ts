/**
 * Every constant of the engine, named as in KubeletConfiguration (pkg/kubelet/apis/config) or, for the
 * kubelet's unexported constants, as in the Go source (kubelet.go, pod_workers.go, pleg/generic.go). All are
 * overridable (server flags, tests) and shown on GET /api/v1/node. Durations in milliseconds.
 * Values are those of kubelet v1.32.
 */
export interface KubeletConfiguration {
  /** syncFrequency: resync of a healthy pod, jittered ×[1, 1.5). */
  syncFrequencyMs: number;
  /** syncLoop's sync ticker. */
  syncTickerMs: number;
  housekeepingPeriodMs: number;
  housekeepingWarningDurationMs: number;
  /** Pod-worker requeue after a failed sync, jittered ×[1, 1.5). */
  backOffPeriodMs: number;
  /** Requeue when the error says "network is not ready". */
  backOffOnTransientErrorPeriodMs: number;
  workerJitterFactor: number;
  /** syncLoop runtime-error backoff. */
  syncLoopBackoffBaseMs: number;
  syncLoopBackoffMaxMs: number;
  maxWaitForContainerRuntimeMs: number;
  runtimeUpPeriodMs: number;
  genericPlegRelistPeriodMs: number;
  genericPlegRelistThresholdMs: number;
  eventedPlegRelistPeriodMs: number;
  eventedPlegRelistThresholdMs: number;
  eventedPlegMaxStreamRetries: number;
  plegChannelCapacity: number;
  /** Use GetContainerEvents when the runtime streams them (gate EventedPLEG). */
  eventedPleg: boolean;
  containerBackOffPeriodMs: number;
  maxContainerBackOffMs: number;
  containerBackOffResetMs: number;
  imageBackOffPeriodMs: number;
  maxImageBackOffMs: number;
  minimumGracePeriodSeconds: number;
  orphanKillGracePeriodSeconds: number;
  serializeImagePulls: boolean;
  runtimeRequestTimeoutMs: number;
  statusSyncPeriodMs: number;
  podLogsDirectory: string;
  /** containerLogMaxSize (--container-log-max-size): a running container's log is rotated at this size; < 0 never. */
  containerLogMaxSizeBytes: number;
  /** containerLogMaxFiles (--container-log-max-files): log files kept per container, the live one included (> 1). */
  containerLogMaxFiles: number;
  /** containerLogMonitorInterval: how often the container log manager looks at the logs' sizes. */
  containerLogMonitorIntervalMs: number;
  /** maxPods (--max-pods): the node's allocatable pods; admission rejects a pod past it (OutOfpods). */
  maxPods: number;
  maxReasonCacheEntries: number;
  /** Label that marks sandboxes and containers this engine created. */
  ownershipLabel: string;
  nodeName: string;
}

export const OWNERSHIP_LABEL = 'io.syncscope.managed';

export const defaultKubeletConfiguration: KubeletConfiguration = {
  syncFrequencyMs: 60_000,
  syncTickerMs: 1_000,
  housekeepingPeriodMs: 2_000,
  housekeepingWarningDurationMs: 1_000,
  backOffPeriodMs: 10_000,
  backOffOnTransientErrorPeriodMs: 1_000,
  workerJitterFactor: 0.5,
  syncLoopBackoffBaseMs: 100,
  syncLoopBackoffMaxMs: 5_000,
  maxWaitForContainerRuntimeMs: 30_000,
  runtimeUpPeriodMs: 5_000,
  genericPlegRelistPeriodMs: 1_000,
  genericPlegRelistThresholdMs: 180_000,
  eventedPlegRelistPeriodMs: 300_000,
  eventedPlegRelistThresholdMs: 600_000,
  eventedPlegMaxStreamRetries: 5,
  plegChannelCapacity: 1000,
  eventedPleg: false,
  containerBackOffPeriodMs: 10_000,
  maxContainerBackOffMs: 300_000,
  containerBackOffResetMs: 600_000,
  imageBackOffPeriodMs: 10_000,
  maxImageBackOffMs: 300_000,
  minimumGracePeriodSeconds: 2,
  orphanKillGracePeriodSeconds: 1,
  serializeImagePulls: true,
  runtimeRequestTimeoutMs: 120_000,
  statusSyncPeriodMs: 10_000,
  podLogsDirectory: '/var/log/pods',
  containerLogMaxSizeBytes: 10 * 1024 * 1024,
  containerLogMaxFiles: 5,
  containerLogMonitorIntervalMs: 10_000,
  maxPods: 110,
  maxReasonCacheEntries: 1000,
  ownershipLabel: OWNERSHIP_LABEL,
  nodeName: 'syncscope-node',
};

/** What GET /api/v1/node returns. */
export interface NodeInfo {
  nodeName: string;
  runtime: {
    name: string;
    version: string;
    apiVersion: string;
    endpoint: string;
    ready: boolean;
    errors: string[];
  };
  simulated: boolean;
  /** Observe mode: the CRI endpoint whose kubelet this server watches (it changes nothing on the node). */
  observing?: string;
  pleg: { mode: 'generic' | 'evented'; healthy: boolean; lastRelist: number | null; message: string };
  sync: { lastIteration: number | null };
  configuration: KubeletConfiguration;
  clock: { now: number; speed: number };
}
