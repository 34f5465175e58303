// Original file: packages/core/src/cri/runtime-v1.proto

import type { Long } from '@grpc/proto-loader';

export interface ExecSyncRequest {
  'container_id'?: (string);
  'cmd'?: (string)[];
  'timeout'?: (number | string | Long);
}

export interface ExecSyncRequest__Output {
  'container_id': (string);
  'cmd': (string)[];
  'timeout': (string);
}
