// Original file: packages/core/src/cri/runtime-v1.proto

import type { PodSandboxConfig as _runtime_v1_PodSandboxConfig, PodSandboxConfig__Output as _runtime_v1_PodSandboxConfig__Output } from '../../runtime/v1/PodSandboxConfig';

export interface RunPodSandboxRequest {
  'config'?: (_runtime_v1_PodSandboxConfig | null);
  'runtime_handler'?: (string);
}

export interface RunPodSandboxRequest__Output {
  'config': (_runtime_v1_PodSandboxConfig__Output | null);
  'runtime_handler': (string);
}
