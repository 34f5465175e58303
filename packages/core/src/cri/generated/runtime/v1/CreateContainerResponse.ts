// Original file: packages/core/src/cri/runtime-v1.proto


export interface CreateContainerResponse {
  'container_id'?: (string);
}

export interface CreateContainerResponse__Output {
  'container_id': (string);
}
