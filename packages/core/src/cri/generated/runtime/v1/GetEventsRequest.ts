// Original file: packages/core/src/cri/runtime-v1.proto


export interface GetEventsRequest {
}

export interface GetEventsRequest__Output {
}
