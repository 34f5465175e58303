import { join } from 'node:path';
import {
  type Container,
  type ContainerConfig,
  type ContainerMetadata,
  type ContainerState,
  type ContainerStatus,
  type ImageSpec,
  msToNs,
  type PodSandbox,
  type PodSandboxConfig,
  type PodSandboxMetadata,
  type PodSandboxState,
  type PodSandboxStatus,
} from '../cri/types.ts';
import type { ImageDef } from './images.ts';
import type { CriLogWriter } from './log-writer.ts';
import type { SignalBox } from './process.ts';

/**
 * The simulated node's records and their CRI views. Lifecycle facts are timestamps (ms on the runtime's
 * clock, 0 = not yet) and flags; the CRI state is derived from them:
 *
 *   created ──StartContainer──▶ startedAt set (RUNNING) ──exit / kill──▶ finishedAt set (EXITED)
 *      └───────────── start failed: finishedAt set, startedAt stays 0 (EXITED, 128 "StartError")
 *   `unknown` (a fault) shows CONTAINER_UNKNOWN until the process ends; it then exits 255 "Unknown".
 */
/** A sandbox config as RunPodSandbox keeps it, once it has checked that the metadata is there. */
type SandboxConfig = PodSandboxConfig & { metadata: PodSandboxMetadata };

/** A container config as CreateContainer keeps it: metadata checked, the image spec it resolved. */
export type CreatedContainerConfig = ContainerConfig & { metadata: ContainerMetadata; image: ImageSpec };

export interface SandboxRecord {
  id: string;
  config: SandboxConfig;
  createdAt: number;
  /** Stopped (StopPodSandbox) or its pause process died (fault, CNI failure). */
  notReady: boolean;
  hostNetwork: boolean;
  /** The pod IP, '' for host network and after StopPodSandbox. */
  ip: string;
  /** Network namespace key for port bindings (sandbox id, or the host's). */
  netns: string;
  /** Reserved name `<name>_<namespace>_<uid>_<attempt>`, released by RemovePodSandbox. */
  name: string;
}

/** A running container's process: present from StartContainer until it exits. */
interface RunningProcess {
  /** Aborted by SIGKILL; every wait in the container's programs (PID 1 and execs) listens to it. */
  kill: AbortController;
  signals: SignalBox;
  log: CriLogWriter | null;
}

export interface ContainerRecord {
  id: string;
  sandboxId: string;
  config: CreatedContainerConfig;
  image: ImageDef;
  /** Reserved name `<ctr>_<pod>_<namespace>_<uid>_<attempt>`, released by RemoveContainer. */
  name: string;
  createdAt: number;
  startedAt: number;
  finishedAt: number;
  exitCode: number;
  reason: string;
  message: string;
  oomKilled: boolean;
  unknown: boolean;
  /** Absolute log path (sandbox log_directory + '/' + config log_path), '' if either is unset. */
  logPath: string;
  env: Map<string, string>;
  vfs: Map<string, string>;
  proc: RunningProcess | null;
  /** Resolves once finishedAt is set. */
  exited: Promise<void>;
  markExited: () => void;
}

export function containerState(c: ContainerRecord): ContainerState {
  if (c.unknown) return 'CONTAINER_UNKNOWN';
  if (c.finishedAt) return 'CONTAINER_EXITED';
  if (c.startedAt) return 'CONTAINER_RUNNING';
  return 'CONTAINER_CREATED';
}

export function sandboxState(s: SandboxRecord): PodSandboxState {
  return s.notReady ? 'SANDBOX_NOTREADY' : 'SANDBOX_READY';
}

const ns = (ms: number) => (ms ? msToNs(ms) : '0');

export function toPodSandbox(s: SandboxRecord): PodSandbox {
  return {
    id: s.id,
    metadata: { ...s.config.metadata },
    state: sandboxState(s),
    created_at: ns(s.createdAt),
    labels: { ...s.config.labels },
    annotations: { ...s.config.annotations },
    runtime_handler: '',
  };
}

export function toPodSandboxStatus(s: SandboxRecord): PodSandboxStatus {
  const opts = s.config.linux?.security_context?.namespace_options;
  return {
    ...toPodSandbox(s),
    network: { ip: s.ip, additional_ips: [] },
    linux: {
      namespaces: {
        options: {
          network: opts?.network ?? 'POD',
          pid: opts?.pid ?? 'CONTAINER',
          ipc: opts?.ipc ?? 'POD',
          target_id: opts?.target_id ?? '',
        },
      },
    },
  };
}

export function toContainer(c: ContainerRecord): Container {
  return {
    id: c.id,
    pod_sandbox_id: c.sandboxId,
    metadata: { ...c.config.metadata },
    image: { ...c.config.image },
    image_ref: c.image.id,
    state: containerState(c),
    created_at: ns(c.createdAt),
    labels: { ...c.config.labels },
    annotations: { ...c.config.annotations },
    image_id: '',
  };
}

export function toContainerStatus(c: ContainerRecord): ContainerStatus {
  return {
    id: c.id,
    metadata: { ...c.config.metadata },
    state: containerState(c),
    created_at: ns(c.createdAt),
    started_at: ns(c.startedAt),
    finished_at: ns(c.finishedAt),
    exit_code: c.exitCode,
    image: { ...c.config.image },
    image_ref: c.image.id,
    reason: c.reason,
    message: c.message,
    labels: { ...c.config.labels },
    annotations: { ...c.config.annotations },
    mounts: [],
    log_path: c.logPath,
    resources: null,
    image_id: '',
  };
}

/** containerd's reason for an exit: OOMKilled whenever the cgroup saw an OOM kill, else by the code. */
export function exitReason(code: number, oomKilled: boolean): string {
  if (oomKilled) return 'OOMKilled';
  return code === 0 ? 'Completed' : 'Error';
}

export function matchLabels(
  labels: Record<string, string>,
  selector: Record<string, string> | undefined,
): boolean {
  if (!selector) return true;
  for (const [k, v] of Object.entries(selector)) if (labels[k] !== v) return false;
  return true;
}

/**
 * A new container's record as CreateContainer stores it: created now, not started, its exit promise
 * pending, its log path under the sandbox's log directory ('' if either is unset). The env comes later.
 */
export function newContainerRecord(
  id: string,
  name: string,
  sb: SandboxRecord,
  config: CreatedContainerConfig,
  image: ImageDef,
  now: number,
): ContainerRecord {
  let markExited: () => void = () => undefined;
  const exited = new Promise<void>((resolve) => {
    markExited = resolve;
  });
  const logDir = sb.config.log_directory;
  return {
    id,
    sandboxId: sb.id,
    config,
    image,
    name,
    createdAt: now,
    startedAt: 0,
    finishedAt: 0,
    exitCode: 0,
    reason: '',
    message: '',
    oomKilled: false,
    unknown: false,
    logPath: logDir && config.log_path ? join(logDir, config.log_path) : '',
    env: new Map(),
    vfs: new Map(),
    proc: null,
    exited,
    markExited,
  };
}
