// Original file: packages/core/src/cri/runtime-v1.proto


export interface PodSandboxMetadata {
  'name'?: (string);
  'uid'?: (string);
  'namespace'?: (string);
  'attempt'?: (number);
}

export interface PodSandboxMetadata__Output {
  'name': (string);
  'uid': (string);
  'namespace': (string);
  'attempt': (number);
}
