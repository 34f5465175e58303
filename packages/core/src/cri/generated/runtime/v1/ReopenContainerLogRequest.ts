// Original file: packages/core/src/cri/runtime-v1.proto


export interface ReopenContainerLogRequest {
  'container_id'?: (string);
}

export interface ReopenContainerLogRequest__Output {
  'container_id': (string);
}
