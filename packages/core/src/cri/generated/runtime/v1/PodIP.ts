// Original file: packages/core/src/cri/runtime-v1.proto


export interface PodIP {
  'ip'?: (string);
}

export interface PodIP__Output {
  'ip': (string);
}
