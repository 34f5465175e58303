// Original file: packages/core/src/cri/runtime-v1.proto


export interface RemoveContainerResponse {
}

export interface RemoveContainerResponse__Output {
}
