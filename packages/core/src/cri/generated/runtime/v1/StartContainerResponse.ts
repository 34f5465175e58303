// Original file: packages/core/src/cri/runtime-v1.proto


export interface StartContainerResponse {
}

export interface StartContainerResponse__Output {
}
