import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '../clock/fake-clock.ts';
import {
  imageSpec,
  linuxContainerResources,
  linuxContainerSecurityContext,
  linuxSandboxSecurityContext,
  namespaceOption,
} from '../cri/messages.ts';
import type { ContainerConfig, PodSandboxConfig } from '../cri/types.ts';
import { SimRuntime } from './sim-runtime.ts';

/** Builders and a node fixture for the simulator's tests (not used by production code). */

function sandboxConfig(
  name: string,
  over: Partial<PodSandboxConfig> & { hostNetwork?: boolean; logDir?: string } = {},
): PodSandboxConfig {
  const { hostNetwork, logDir, ...rest } = over;
  return {
    metadata: { name, uid: `uid-${name}`, namespace: 'default', attempt: 0 },
    hostname: '',
    log_directory: logDir ?? '',
    dns_config: null,
    port_mappings: [],
    labels: { 'io.kubernetes.pod.name': name },
    annotations: {},
    linux: {
      cgroup_parent: '',
      security_context: linuxSandboxSecurityContext({
        namespace_options: namespaceOption({
          network: hostNetwork ? 'NODE' : 'POD',
          pid: 'CONTAINER',
          ipc: 'POD',
        }),
      }),
      sysctls: {},
    },
    ...rest,
  };
}

export function containerConfig(
  name: string,
  command: string[],
  over: Partial<ContainerConfig> & { memoryLimit?: number } = {},
): ContainerConfig {
  const { memoryLimit, ...rest } = over;
  return {
    metadata: { name, attempt: 0 },
    image: imageSpec({ image: 'busybox' }),
    command,
    args: [],
    working_dir: '',
    envs: [],
    mounts: [],
    labels: { 'io.kubernetes.container.name': name },
    annotations: { 'io.kubernetes.container.restartCount': '0' },
    log_path: `${name}/0.log`,
    stdin: false,
    stdin_once: false,
    tty: false,
    linux: {
      resources: memoryLimit ? linuxContainerResources({ memory_limit_in_bytes: String(memoryLimit) }) : null,
      // as the kubelet sets it: the container's own pid namespace, so its command is PID 1
      security_context: linuxContainerSecurityContext({
        namespace_options: namespaceOption({ network: 'POD', pid: 'CONTAINER', ipc: 'POD' }),
      }),
    },
    ...rest,
  };
}

export interface Node {
  clock: FakeClock;
  sim: SimRuntime;
  logDir: string;
  /** RunPodSandbox with a log directory under logDir. */
  pod(
    name: string,
    over?: Parameters<typeof sandboxConfig>[1],
  ): Promise<{ id: string; config: PodSandboxConfig }>;
  /** CreateContainer + StartContainer. */
  run(
    podId: string,
    pod: PodSandboxConfig,
    name: string,
    command: string[],
    over?: Parameters<typeof containerConfig>[2],
  ): Promise<string>;
  /** Log file lines without their timestamps: `stdout F hello`. */
  log(podName: string, ctr: string): string[];
  cleanup(): void;
}

/** A node on a FakeClock; `statePath` keeps its records there, `logDir` continues another node's logs. */
export function newNode(opts: { statePath?: string; logDir?: string; clock?: FakeClock } = {}): Node {
  const clock = opts.clock ?? new FakeClock();
  const sim = new SimRuntime({
    clock,
    ...(opts.statePath !== undefined ? { statePath: opts.statePath, warn: () => undefined } : {}),
  });
  const logDir = opts.logDir ?? mkdtempSync(join(tmpdir(), 'sim-test-'));
  return {
    clock,
    sim,
    logDir,
    async pod(name, over = {}) {
      const config = sandboxConfig(name, { logDir: join(logDir, name), ...over });
      return { id: await sim.runPodSandbox(config), config };
    },
    async run(podId, pod, name, command, over = {}) {
      const id = await sim.createContainer(podId, containerConfig(name, command, over), pod);
      await sim.startContainer(id);
      return id;
    },
    log(podName, ctr) {
      const text = readFileSync(join(logDir, podName, ctr, '0.log'), 'utf8');
      return text
        .split('\n')
        .filter(Boolean)
        .map((l) => l.slice(l.indexOf(' ') + 1));
    },
    cleanup() {
      sim.shutdown();
      rmSync(logDir, { recursive: true, force: true });
    },
  };
}
