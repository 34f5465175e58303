// Original file: packages/core/src/cri/runtime-v1.proto


export interface StopPodSandboxRequest {
  'pod_sandbox_id'?: (string);
}

export interface StopPodSandboxRequest__Output {
  'pod_sandbox_id': (string);
}
