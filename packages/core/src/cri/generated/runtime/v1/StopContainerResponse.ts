// Original file: packages/core/src/cri/runtime-v1.proto


export interface StopContainerResponse {
}

export interface StopContainerResponse__Output {
}
