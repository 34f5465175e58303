// Original file: packages/core/src/cri/runtime-v1.proto


export interface RunPodSandboxResponse {
  'pod_sandbox_id'?: (string);
}

export interface RunPodSandboxResponse__Output {
  'pod_sandbox_id': (string);
}
