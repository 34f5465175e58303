// Original file: packages/core/src/cri/runtime-v1.proto


export interface ExecResponse {
  'url'?: (string);
}

export interface ExecResponse__Output {
  'url': (string);
}
