// Original file: packages/core/src/cri/runtime-v1.proto

import type { Capability as _runtime_v1_Capability, Capability__Output as _runtime_v1_Capability__Output } from '../../runtime/v1/Capability';
import type { NamespaceOption as _runtime_v1_NamespaceOption, NamespaceOption__Output as _runtime_v1_NamespaceOption__Output } from '../../runtime/v1/NamespaceOption';
import type { Int64Value as _runtime_v1_Int64Value, Int64Value__Output as _runtime_v1_Int64Value__Output } from '../../runtime/v1/Int64Value';
import type { SecurityProfile as _runtime_v1_SecurityProfile, SecurityProfile__Output as _runtime_v1_SecurityProfile__Output } from '../../runtime/v1/SecurityProfile';
import type { Long } from '@grpc/proto-loader';

export interface LinuxContainerSecurityContext {
  'capabilities'?: (_runtime_v1_Capability | null);
  'privileged'?: (boolean);
  'namespace_options'?: (_runtime_v1_NamespaceOption | null);
  'run_as_user'?: (_runtime_v1_Int64Value | null);
  'run_as_username'?: (string);
  'readonly_rootfs'?: (boolean);
  'supplemental_groups'?: (number | string | Long)[];
  'no_new_privs'?: (boolean);
  'run_as_group'?: (_runtime_v1_Int64Value | null);
  'masked_paths'?: (string)[];
  'readonly_paths'?: (string)[];
  'seccomp'?: (_runtime_v1_SecurityProfile | null);
  'apparmor'?: (_runtime_v1_SecurityProfile | null);
}

export interface LinuxContainerSecurityContext__Output {
  'capabilities': (_runtime_v1_Capability__Output | null);
  'privileged': (boolean);
  'namespace_options': (_runtime_v1_NamespaceOption__Output | null);
  'run_as_user': (_runtime_v1_Int64Value__Output | null);
  'run_as_username': (string);
  'readonly_rootfs': (boolean);
  'supplemental_groups': (string)[];
  'no_new_privs': (boolean);
  'run_as_group': (_runtime_v1_Int64Value__Output | null);
  'masked_paths': (string)[];
  'readonly_paths': (string)[];
  'seccomp': (_runtime_v1_SecurityProfile__Output | null);
  'apparmor': (_runtime_v1_SecurityProfile__Output | null);
}
