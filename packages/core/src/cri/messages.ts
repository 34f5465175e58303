/**
 * Complete CRI messages from the fields one sets, every other field its zero value: what a Go struct
 * literal (`&runtimeapi.ImageSpec{Image: ref}`) is in the kubelet, and what the runtime decodes from a
 * message that leaves those fields unset. The engine builds the messages it sends with these, so the
 * simulated node sees the same object in-process as over gRPC. Pure functions; each call returns fresh
 * objects.
 */
import type {
  ContainerConfig,
  ImageSpec,
  LinuxContainerResources,
  LinuxContainerSecurityContext,
  LinuxSandboxSecurityContext,
  NamespaceOption,
  PodSandboxConfig,
} from './types.ts';

export function podSandboxConfig(fields: Partial<PodSandboxConfig>): PodSandboxConfig {
  return {
    metadata: null,
    hostname: '',
    log_directory: '',
    dns_config: null,
    port_mappings: [],
    labels: {},
    annotations: {},
    linux: null,
    ...fields,
  };
}

export function containerConfig(fields: Partial<ContainerConfig>): ContainerConfig {
  return {
    metadata: null,
    image: null,
    command: [],
    args: [],
    working_dir: '',
    envs: [],
    mounts: [],
    labels: {},
    annotations: {},
    log_path: '',
    stdin: false,
    stdin_once: false,
    tty: false,
    linux: null,
    ...fields,
  };
}

export function imageSpec(fields: Partial<ImageSpec>): ImageSpec {
  return { image: '', annotations: {}, user_specified_image: '', runtime_handler: '', ...fields };
}

/** The namespace modes are required: POD (the zero value) is rarely what a caller means by leaving one out. */
export function namespaceOption(
  fields: Pick<NamespaceOption, 'network' | 'pid' | 'ipc'> & Partial<NamespaceOption>,
): NamespaceOption {
  return { target_id: '', ...fields };
}

export function linuxSandboxSecurityContext(
  fields: Partial<LinuxSandboxSecurityContext>,
): LinuxSandboxSecurityContext {
  return {
    namespace_options: null,
    run_as_user: null,
    readonly_rootfs: false,
    supplemental_groups: [],
    privileged: false,
    run_as_group: null,
    seccomp: null,
    ...fields,
  };
}

export function linuxContainerSecurityContext(
  fields: Partial<LinuxContainerSecurityContext>,
): LinuxContainerSecurityContext {
  return {
    capabilities: null,
    privileged: false,
    namespace_options: null,
    run_as_user: null,
    run_as_username: '',
    readonly_rootfs: false,
    supplemental_groups: [],
    no_new_privs: false,
    run_as_group: null,
    masked_paths: [],
    readonly_paths: [],
    seccomp: null,
    apparmor: null,
    ...fields,
  };
}

export function linuxContainerResources(fields: Partial<LinuxContainerResources>): LinuxContainerResources {
  return {
    cpu_period: '0',
    cpu_quota: '0',
    cpu_shares: '0',
    memory_limit_in_bytes: '0',
    oom_score_adj: '0',
    cpuset_cpus: '',
    cpuset_mems: '',
    unified: {},
    memory_swap_limit_in_bytes: '0',
    ...fields,
  };
}
