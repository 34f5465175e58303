// Original file: packages/core/src/cri/runtime-v1.proto

import type { MountPropagation as _runtime_v1_MountPropagation, MountPropagation__Output as _runtime_v1_MountPropagation__Output } from '../../runtime/v1/MountPropagation';

export interface Mount {
  'container_path'?: (string);
  'host_path'?: (string);
  'readonly'?: (boolean);
  'selinux_relabel'?: (boolean);
  'propagation'?: (_runtime_v1_MountPropagation);
}

export interface Mount__Output {
  'container_path': (string);
  'host_path': (string);
  'readonly': (boolean);
  'selinux_relabel': (boolean);
  'propagation': (_runtime_v1_MountPropagation__Output);
}
