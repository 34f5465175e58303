// Original file: packages/core/src/cri/runtime-v1.proto


export interface ContainerMetadata {
  'name'?: (string);
  'attempt'?: (number);
}

export interface ContainerMetadata__Output {
  'name': (string);
  'attempt': (number);
}
