// Original file: packages/core/src/cri/runtime-v1.proto


export interface ReopenContainerLogResponse {
}

export interface ReopenContainerLogResponse__Output {
}
