// Original file: packages/core/src/cri/runtime-v1.proto

import type { Namespace as _runtime_v1_Namespace, Namespace__Output as _runtime_v1_Namespace__Output } from '../../runtime/v1/Namespace';

export interface LinuxPodSandboxStatus {
  'namespaces'?: (_runtime_v1_Namespace | null);
}

export interface LinuxPodSandboxStatus__Output {
  'namespaces': (_runtime_v1_Namespace__Output | null);
}
