// Original file: packages/core/src/cri/runtime-v1.proto


export interface StopPodSandboxResponse {
}

export interface StopPodSandboxResponse__Output {
}
