/**
 * @syncscope/core: the engine (a TypeScript kubelet), the CRI client and proto, the simulated node, and the
 * trace type. Browser code imports only the browser-safe subpaths (`@syncscope/core/trace`,
 * `@syncscope/core/api`), never this entry.
 */

export type { Event as KubeEvent, Pod, PodList, PodStatus, Status } from './api/v1.ts';
export { rfc3339 } from './api/v1.ts';
export * from './clock/index.ts';
export * from './cri/index.ts';
export { type TraceListener, TraceRecorder } from './events/recorder.ts';
export * from './events/trace.ts';
export { type AdmittedPod, admittedPod } from './kubelet/config/admitted-pod.ts';
export { gracefulDeletion } from './kubelet/config/config.ts';
export {
  defaultKubeletConfiguration,
  type KubeletConfiguration,
  type NodeInfo,
  OWNERSHIP_LABEL,
} from './kubelet/configuration.ts';
// observe mode (apps/server/src/observe) runs these over a read-only CRI, without the rest of the engine
export { PodCache } from './kubelet/container/cache.ts';
export type { ContainerStatusRT, PodStatusRT, RuntimePod } from './kubelet/container/runtime.ts';
export { Kubelet, type KubeletDeps } from './kubelet/kubelet.ts';
export { KubeGenericRuntimeManager } from './kubelet/kuberuntime/kuberuntime-manager.ts';
export { EventedPLEG } from './kubelet/pleg/evented.ts';
export { GenericPLEG } from './kubelet/pleg/generic.ts';
export { newPLEGs, type PLEGs } from './kubelet/pleg/new-plegs.ts';
export * from './pod-state/index.ts';
export {
  type ActiveFault,
  Faults,
  type LastingFault,
  SimNetProber,
  type SimNode,
  SimRuntime,
  startSimNode,
} from './sim/index.ts';
