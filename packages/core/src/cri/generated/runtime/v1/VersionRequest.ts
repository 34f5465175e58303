// Original file: packages/core/src/cri/runtime-v1.proto


export interface VersionRequest {
  'version'?: (string);
}

export interface VersionRequest__Output {
  'version': (string);
}
