// Original file: packages/core/src/cri/runtime-v1.proto


export interface ContainerStatusRequest {
  'container_id'?: (string);
  'verbose'?: (boolean);
}

export interface ContainerStatusRequest__Output {
  'container_id': (string);
  'verbose': (boolean);
}
