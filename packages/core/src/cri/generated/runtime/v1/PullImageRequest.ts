// Original file: packages/core/src/cri/runtime-v1.proto

import type { ImageSpec as _runtime_v1_ImageSpec, ImageSpec__Output as _runtime_v1_ImageSpec__Output } from '../../runtime/v1/ImageSpec';
import type { PodSandboxConfig as _runtime_v1_PodSandboxConfig, PodSandboxConfig__Output as _runtime_v1_PodSandboxConfig__Output } from '../../runtime/v1/PodSandboxConfig';

export interface PullImageRequest {
  'image'?: (_runtime_v1_ImageSpec | null);
  'sandbox_config'?: (_runtime_v1_PodSandboxConfig | null);
}

export interface PullImageRequest__Output {
  'image': (_runtime_v1_ImageSpec__Output | null);
  'sandbox_config': (_runtime_v1_PodSandboxConfig__Output | null);
}
