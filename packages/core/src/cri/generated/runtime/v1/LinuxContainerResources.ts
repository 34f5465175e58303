// Original file: packages/core/src/cri/runtime-v1.proto

import type { Long } from '@grpc/proto-loader';

export interface LinuxContainerResources {
  'cpu_period'?: (number | string | Long);
  'cpu_quota'?: (number | string | Long);
  'cpu_shares'?: (number | string | Long);
  'memory_limit_in_bytes'?: (number | string | Long);
  'oom_score_adj'?: (number | string | Long);
  'cpuset_cpus'?: (string);
  'cpuset_mems'?: (string);
  'unified'?: ({[key: string]: string});
  'memory_swap_limit_in_bytes'?: (number | string | Long);
}

export interface LinuxContainerResources__Output {
  'cpu_period': (string);
  'cpu_quota': (string);
  'cpu_shares': (string);
  'memory_limit_in_bytes': (string);
  'oom_score_adj': (string);
  'cpuset_cpus': (string);
  'cpuset_mems': (string);
  'unified': ({[key: string]: string});
  'memory_swap_limit_in_bytes': (string);
}
