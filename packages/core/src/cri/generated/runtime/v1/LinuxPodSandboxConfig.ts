// Original file: packages/core/src/cri/runtime-v1.proto

import type { LinuxSandboxSecurityContext as _runtime_v1_LinuxSandboxSecurityContext, LinuxSandboxSecurityContext__Output as _runtime_v1_LinuxSandboxSecurityContext__Output } from '../../runtime/v1/LinuxSandboxSecurityContext';

export interface LinuxPodSandboxConfig {
  'cgroup_parent'?: (string);
  'security_context'?: (_runtime_v1_LinuxSandboxSecurityContext | null);
  'sysctls'?: ({[key: string]: string});
}

export interface LinuxPodSandboxConfig__Output {
  'cgroup_parent': (string);
  'security_context': (_runtime_v1_LinuxSandboxSecurityContext__Output | null);
  'sysctls': ({[key: string]: string});
}
