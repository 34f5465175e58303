// Original file: packages/core/src/cri/runtime-v1.proto


export interface RemovePodSandboxResponse {
}

export interface RemovePodSandboxResponse__Output {
}
