// Original file: packages/core/src/cri/runtime-v1.proto


export interface RemovePodSandboxRequest {
  'pod_sandbox_id'?: (string);
}

export interface RemovePodSandboxRequest__Output {
  'pod_sandbox_id': (string);
}
