// Original file: packages/core/src/cri/runtime-v1.proto


export interface PortForwardResponse {
  'url'?: (string);
}

export interface PortForwardResponse__Output {
  'url': (string);
}
