// Original file: packages/core/src/cri/runtime-v1.proto


export interface KeyValue {
  'key'?: (string);
  'value'?: (string);
}

export interface KeyValue__Output {
  'key': (string);
  'value': (string);
}
