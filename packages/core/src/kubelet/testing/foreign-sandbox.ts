/**
 * Test fixture for "never touch what we did not create" (container GC, housekeeping on a shared containerd):
 * a sandbox config as another kubelet sharing the runtime would make it. Tests only.
 */
import { linuxSandboxSecurityContext, namespaceOption } from '../../cri/messages.ts';
import type { PodSandboxConfig } from '../../cri/types.ts';

/** Sandbox `name` of pod other/`name`: a kubelet's pod labels, but not our ownership label. */
export function foreignSandbox(name: string, uid: string): PodSandboxConfig {
  return {
    metadata: { name, uid, namespace: 'other', attempt: 0 },
    hostname: '',
    log_directory: '',
    dns_config: null,
    port_mappings: [],
    labels: {
      'io.kubernetes.pod.uid': uid,
      'io.kubernetes.pod.name': name,
      'io.kubernetes.pod.namespace': 'other',
    },
    annotations: {},
    linux: {
      cgroup_parent: '',
      security_context: linuxSandboxSecurityContext({
        namespace_options: namespaceOption({ network: 'NODE', pid: 'CONTAINER', ipc: 'POD' }),
      }),
      sysctls: {},
    },
  };
}
