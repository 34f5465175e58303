// Original file: packages/core/src/cri/runtime-v1.proto


export interface DNSConfig {
  'servers'?: (string)[];
  'searches'?: (string)[];
  'options'?: (string)[];
}

export interface DNSConfig__Output {
  'servers': (string)[];
  'searches': (string)[];
  'options': (string)[];
}
