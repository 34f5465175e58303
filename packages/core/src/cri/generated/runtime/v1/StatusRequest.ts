// Original file: packages/core/src/cri/runtime-v1.proto


export interface StatusRequest {
  'verbose'?: (boolean);
}

export interface StatusRequest__Output {
  'verbose': (boolean);
}
