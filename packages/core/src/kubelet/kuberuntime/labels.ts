/**
 * Labels and annotations the kubelet puts on sandboxes and containers (kuberuntime/labels.go,
 * pkg/kubelet/types/labels.go), and the parsers that read them back. They are the only link between a
 * runtime object and its pod: the kubelet keeps no checkpoint, so after a restart it regroups containers by
 * the pod-UID label and recovers hash, restart count, grace periods and the preStop hook from annotations.
 *
 * Every sandbox and container also carries our ownership label (value "true"), so the engine never touches
 * containers it did not create when it shares a containerd namespace with others.
 */
import type { Container, ContainerPort, LifecycleHandler, Pod } from '../../api/v1.ts';
import { OWNERSHIP_LABEL } from '../configuration.ts';
import { hashContainerHex } from './hash.ts';

const KubernetesPodNameLabel = 'io.kubernetes.pod.name';
const KubernetesPodNamespaceLabel = 'io.kubernetes.pod.namespace';
export const KubernetesPodUIDLabel = 'io.kubernetes.pod.uid';
export const KubernetesContainerNameLabel = 'io.kubernetes.container.name';

const podDeletionGracePeriodLabel = 'io.kubernetes.pod.deletionGracePeriod';
const podTerminationGracePeriodLabel = 'io.kubernetes.pod.terminationGracePeriod';
const containerHashLabel = 'io.kubernetes.container.hash';
const containerRestartCountLabel = 'io.kubernetes.container.restartCount';
const containerTerminationMessagePathLabel = 'io.kubernetes.container.terminationMessagePath';
const containerTerminationMessagePolicyLabel = 'io.kubernetes.container.terminationMessagePolicy';
const containerPreStopHandlerLabel = 'io.kubernetes.container.preStopHandler';
const containerPortsLabel = 'io.kubernetes.container.ports';

/** API defaults the kubelet would see on a defaulted pod. */
const DefaultTerminationMessagePath = '/dev/termination-log';
const DefaultTerminationMessagePolicy = 'File';
export const DefaultTerminationGracePeriodSeconds = 30;

export function podNamespace(pod: Pod): string {
  return pod.metadata.namespace ?? 'default';
}

/** Sandbox labels: the pod's labels plus name, namespace, uid, plus ownership. */
export function newPodLabels(pod: Pod, ownershipLabel = OWNERSHIP_LABEL): Record<string, string> {
  return {
    ...(pod.metadata.labels ?? {}),
    [KubernetesPodNameLabel]: pod.metadata.name,
    [KubernetesPodNamespaceLabel]: podNamespace(pod),
    [KubernetesPodUIDLabel]: pod.metadata.uid ?? '',
    [ownershipLabel]: 'true',
  };
}

export function newPodAnnotations(pod: Pod): Record<string, string> {
  return { ...(pod.metadata.annotations ?? {}) };
}

export function newContainerLabels(
  container: Container,
  pod: Pod,
  ownershipLabel = OWNERSHIP_LABEL,
): Record<string, string> {
  return {
    [KubernetesPodNameLabel]: pod.metadata.name,
    [KubernetesPodNamespaceLabel]: podNamespace(pod),
    [KubernetesPodUIDLabel]: pod.metadata.uid ?? '',
    [KubernetesContainerNameLabel]: container.name,
    [ownershipLabel]: 'true',
  };
}

export function newContainerAnnotations(
  container: Container,
  pod: Pod,
  restartCount: number,
): Record<string, string> {
  const a: Record<string, string> = {
    [containerHashLabel]: hashContainerHex(container),
    [containerRestartCountLabel]: String(restartCount),
    [containerTerminationMessagePathLabel]: container.terminationMessagePath ?? DefaultTerminationMessagePath,
    [containerTerminationMessagePolicyLabel]:
      container.terminationMessagePolicy ?? DefaultTerminationMessagePolicy,
  };
  if (pod.metadata.deletionGracePeriodSeconds !== undefined) {
    a[podDeletionGracePeriodLabel] = String(pod.metadata.deletionGracePeriodSeconds);
  }
  a[podTerminationGracePeriodLabel] = String(
    pod.spec.terminationGracePeriodSeconds ?? DefaultTerminationGracePeriodSeconds,
  );
  const preStop = container.lifecycle?.preStop;
  if (preStop) a[containerPreStopHandlerLabel] = JSON.stringify(goOrderHandler(preStop));
  if (container.ports && container.ports.length > 0) {
    a[containerPortsLabel] = JSON.stringify(container.ports.map(goOrderPort));
  }
  return a;
}

/** v1.ContainerPort in Go field order, protocol defaulted to TCP, zero values omitted. */
function goOrderPort(p: ContainerPort): ContainerPort {
  return {
    ...(p.name ? { name: p.name } : {}),
    ...(p.hostPort ? { hostPort: p.hostPort } : {}),
    containerPort: p.containerPort,
    protocol: p.protocol ?? 'TCP',
    ...(p.hostIP ? { hostIP: p.hostIP } : {}),
  };
}

/** v1.LifecycleHandler in Go field order (exec, httpGet, tcpSocket, sleep). */
function goOrderHandler(h: LifecycleHandler): LifecycleHandler {
  return {
    ...(h.exec ? { exec: h.exec } : {}),
    ...(h.httpGet ? { httpGet: h.httpGet } : {}),
    ...(h.tcpSocket ? { tcpSocket: h.tcpSocket } : {}),
    ...(h.sleep ? { sleep: h.sleep } : {}),
  };
}

export interface LabeledPodSandboxInfo {
  labels: Record<string, string>;
  podName: string;
  podNamespace: string;
  podUID: string;
}

/** getPodSandboxInfoFromLabels: the pod's own labels are what is left after removing ours. */
export function getPodSandboxInfoFromLabels(
  labels: Record<string, string>,
  ownershipLabel = OWNERSHIP_LABEL,
): LabeledPodSandboxInfo {
  const own = new Set([
    KubernetesPodNameLabel,
    KubernetesPodNamespaceLabel,
    KubernetesPodUIDLabel,
    ownershipLabel,
  ]);
  const rest: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels)) if (!own.has(k)) rest[k] = v;
  return {
    labels: rest,
    podName: labels[KubernetesPodNameLabel] ?? '',
    podNamespace: labels[KubernetesPodNamespaceLabel] ?? '',
    podUID: labels[KubernetesPodUIDLabel] ?? '',
  };
}

export interface LabeledContainerInfo {
  containerName: string;
  podName: string;
  podNamespace: string;
  podUID: string;
}

export function getContainerInfoFromLabels(labels: Record<string, string>): LabeledContainerInfo {
  return {
    containerName: labels[KubernetesContainerNameLabel] ?? '',
    podName: labels[KubernetesPodNameLabel] ?? '',
    podNamespace: labels[KubernetesPodNamespaceLabel] ?? '',
    podUID: labels[KubernetesPodUIDLabel] ?? '',
  };
}

export interface AnnotatedContainerInfo {
  hash: string;
  restartCount: number;
  podDeletionGracePeriod?: number;
  podTerminationGracePeriod?: number;
  terminationMessagePath: string;
  terminationMessagePolicy: string;
  preStopHandler?: LifecycleHandler;
  containerPorts?: ContainerPort[];
}

/** getContainerInfoFromAnnotations: missing or unparsable values read as zero/absent, as in the kubelet. */
export function getContainerInfoFromAnnotations(annotations: Record<string, string>): AnnotatedContainerInfo {
  const info: AnnotatedContainerInfo = {
    hash: annotations[containerHashLabel] ?? '',
    restartCount: intOr(annotations[containerRestartCountLabel], 0) ?? 0,
    terminationMessagePath: annotations[containerTerminationMessagePathLabel] ?? '',
    terminationMessagePolicy: annotations[containerTerminationMessagePolicyLabel] ?? '',
  };
  const del = intOr(annotations[podDeletionGracePeriodLabel], undefined);
  if (del !== undefined) info.podDeletionGracePeriod = del;
  const term = intOr(annotations[podTerminationGracePeriodLabel], undefined);
  if (term !== undefined) info.podTerminationGracePeriod = term;
  const preStop = jsonOr<LifecycleHandler>(annotations[containerPreStopHandlerLabel]);
  if (preStop) info.preStopHandler = preStop;
  const ports = jsonOr<ContainerPort[]>(annotations[containerPortsLabel]);
  if (ports) info.containerPorts = ports;
  return info;
}

function intOr<T>(v: string | undefined, fallback: T): number | T {
  if (v === undefined || !/^-?\d+$/.test(v)) return fallback;
  return Number.parseInt(v, 10);
}

function jsonOr<T>(v: string | undefined): T | undefined {
  if (v === undefined) return undefined;
  try {
    return JSON.parse(v) as T;
  } catch {
    return undefined;
  }
}

/** True when every label set carries our ownership label. */
export function isManaged(
  labels: Record<string, string> | undefined,
  ownershipLabel = OWNERSHIP_LABEL,
): boolean {
  return labels?.[ownershipLabel] === 'true';
}
