// Original file: packages/core/src/cri/runtime-v1.proto


export interface StartContainerRequest {
  'container_id'?: (string);
}

export interface StartContainerRequest__Output {
  'container_id': (string);
}
