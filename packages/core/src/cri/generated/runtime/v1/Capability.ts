// Original file: packages/core/src/cri/runtime-v1.proto


export interface Capability {
  'add_capabilities'?: (string)[];
  'drop_capabilities'?: (string)[];
  'add_ambient_capabilities'?: (string)[];
}

export interface Capability__Output {
  'add_capabilities': (string)[];
  'drop_capabilities': (string)[];
  'add_ambient_capabilities': (string)[];
}
