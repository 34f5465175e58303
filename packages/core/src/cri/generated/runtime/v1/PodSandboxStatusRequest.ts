// Original file: packages/core/src/cri/runtime-v1.proto


export interface PodSandboxStatusRequest {
  'pod_sandbox_id'?: (string);
  'verbose'?: (boolean);
}

export interface PodSandboxStatusRequest__Output {
  'pod_sandbox_id': (string);
  'verbose': (boolean);
}
