/**
 * Sandbox configs made outside the engine, by tests and the bench's bare-CRI floor: the pod labels a kubelet
 * puts on a sandbox (name, namespace, uid) but not our ownership label. Tests and benchmarks only.
 */
import { linuxSandboxSecurityContext, namespaceOption } from '../../cri/messages.ts';
import type { PodSandboxConfig } from '../../cri/types.ts';

export interface PlainSandbox {
  name: string;
  uid: string;
  namespace: string;
  /** the node's network namespace (no hostname), as a hostNetwork pod's */
  hostNetwork: boolean;
  /** where the runtime writes the sandbox's container logs ('' for none) */
  logDirectory: string;
}

/** A sandbox config with a kubelet's pod labels and namespace options, nothing of ours. */
export function plainSandboxConfig(s: PlainSandbox): PodSandboxConfig {
  return {
    metadata: { name: s.name, uid: s.uid, namespace: s.namespace, attempt: 0 },
    hostname: s.hostNetwork ? '' : s.name,
    log_directory: s.logDirectory,
    dns_config: null,
    port_mappings: [],
    labels: {
      'io.kubernetes.pod.uid': s.uid,
      'io.kubernetes.pod.name': s.name,
      'io.kubernetes.pod.namespace': s.namespace,
    },
    annotations: {},
    linux: {
      cgroup_parent: '',
      security_context: linuxSandboxSecurityContext({
        namespace_options: namespaceOption({
          network: s.hostNetwork ? 'NODE' : 'POD',
          pid: 'CONTAINER',
          ipc: 'POD',
        }),
      }),
      sysctls: {},
    },
  };
}

/** Sandbox `name` of pod other/`name`, as another kubelet sharing the runtime would make it. */
export function foreignSandbox(name: string, uid: string): PodSandboxConfig {
  return plainSandboxConfig({ name, uid, namespace: 'other', hostNetwork: true, logDirectory: '' });
}
