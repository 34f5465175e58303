// Original file: packages/core/src/cri/runtime-v1.proto


export interface RemoveImageResponse {
}

export interface RemoveImageResponse__Output {
}
