// Original file: packages/core/src/cri/runtime-v1.proto

import type { ContainerState as _runtime_v1_ContainerState, ContainerState__Output as _runtime_v1_ContainerState__Output } from '../../runtime/v1/ContainerState';

export interface ContainerStateValue {
  'state'?: (_runtime_v1_ContainerState);
}

export interface ContainerStateValue__Output {
  'state': (_runtime_v1_ContainerState__Output);
}
