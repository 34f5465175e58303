// Original file: packages/core/src/cri/runtime-v1.proto


export interface PullImageResponse {
  'image_ref'?: (string);
}

export interface PullImageResponse__Output {
  'image_ref': (string);
}
