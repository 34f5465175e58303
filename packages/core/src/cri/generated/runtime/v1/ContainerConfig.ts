// Original file: packages/core/src/cri/runtime-v1.proto

import type { ContainerMetadata as _runtime_v1_ContainerMetadata, ContainerMetadata__Output as _runtime_v1_ContainerMetadata__Output } from '../../runtime/v1/ContainerMetadata';
import type { ImageSpec as _runtime_v1_ImageSpec, ImageSpec__Output as _runtime_v1_ImageSpec__Output } from '../../runtime/v1/ImageSpec';
import type { KeyValue as _runtime_v1_KeyValue, KeyValue__Output as _runtime_v1_KeyValue__Output } from '../../runtime/v1/KeyValue';
import type { Mount as _runtime_v1_Mount, Mount__Output as _runtime_v1_Mount__Output } from '../../runtime/v1/Mount';
import type { LinuxContainerConfig as _runtime_v1_LinuxContainerConfig, LinuxContainerConfig__Output as _runtime_v1_LinuxContainerConfig__Output } from '../../runtime/v1/LinuxContainerConfig';

export interface ContainerConfig {
  'metadata'?: (_runtime_v1_ContainerMetadata | null);
  'image'?: (_runtime_v1_ImageSpec | null);
  'command'?: (string)[];
  'args'?: (string)[];
  'working_dir'?: (string);
  'envs'?: (_runtime_v1_KeyValue)[];
  'mounts'?: (_runtime_v1_Mount)[];
  'labels'?: ({[key: string]: string});
  'annotations'?: ({[key: string]: string});
  'log_path'?: (string);
  'stdin'?: (boolean);
  'stdin_once'?: (boolean);
  'tty'?: (boolean);
  'linux'?: (_runtime_v1_LinuxContainerConfig | null);
}

export interface ContainerConfig__Output {
  'metadata': (_runtime_v1_ContainerMetadata__Output | null);
  'image': (_runtime_v1_ImageSpec__Output | null);
  'command': (string)[];
  'args': (string)[];
  'working_dir': (string);
  'envs': (_runtime_v1_KeyValue__Output)[];
  'mounts': (_runtime_v1_Mount__Output)[];
  'labels': ({[key: string]: string});
  'annotations': ({[key: string]: string});
  'log_path': (string);
  'stdin': (boolean);
  'stdin_once': (boolean);
  'tty': (boolean);
  'linux': (_runtime_v1_LinuxContainerConfig__Output | null);
}
