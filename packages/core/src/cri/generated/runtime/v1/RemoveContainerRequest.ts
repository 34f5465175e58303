// Original file: packages/core/src/cri/runtime-v1.proto


export interface RemoveContainerRequest {
  'container_id'?: (string);
}

export interface RemoveContainerRequest__Output {
  'container_id': (string);
}
