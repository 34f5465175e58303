/**
 * Starting and killing containers (kuberuntime_container.go).
 *
 * startContainer: ensure the image → restart count → CreateContainer → StartContainer → postStart hook,
 * with the kubelet's events and error tokens. killContainer: Killing event → preStop hook (its time is
 * taken from the grace period) → StopContainer with at least minimumGracePeriodSeconds; NotFound counts as
 * stopped. Both run inside a pod worker and may take as long as the runtime (and the grace period) takes.
 */
import type { Container, LifecycleHandler, Pod } from '../../api/v1.ts';
import { abortError } from '../../clock/clock.ts';
import {
  imageSpec,
  linuxContainerResources,
  linuxContainerSecurityContext,
  namespaceOption,
} from '../../cri/messages.ts';
import type {
  ContainerConfig,
  KeyValue,
  LinuxContainerResources,
  PodSandboxConfig,
} from '../../cri/types.ts';
import { isNotFound } from '../../cri/types.ts';
import type { PodStatusRT } from '../container/runtime.ts';
import { Reasons } from '../events/event-recorder.ts';
import { grpcMessage } from './instrumented-services.ts';
import { buildPodLogsDirectory } from './kuberuntime-sandbox.ts';
import {
  DefaultTerminationGracePeriodSeconds,
  getContainerInfoFromAnnotations,
  getContainerInfoFromLabels,
  newContainerAnnotations,
  newContainerLabels,
} from './labels.ts';
import type { ContainerKillReason } from './pod-actions.ts';
import { parseQuantity } from './quantity.ts';
import type { RuntimeContext } from './runtime-context.ts';
import { containerFieldPath, findContainerStatusByName, formatPod, getContainerSpec } from './util.ts';

const ErrCreateContainerConfig = 'CreateContainerConfigError';
const ErrCreateContainer = 'CreateContainerError';
const ErrRunContainer = 'RunContainerError';
const ErrPostStartHook = 'PostStartHookError';

export interface StartResult {
  message: string;
  /** error token, undefined on success */
  error?: string;
}

function recordContainerEvent(
  ctx: RuntimeContext,
  pod: Pod,
  c: Container,
  type: 'Normal' | 'Warning',
  reason: string,
  message: string,
) {
  ctx.recorder.event(pod, type, reason, message, containerFieldPath(pod, c.name));
}

/** calcRestartCountByLogDir: max N over `N.log` / `N.log.*` plus one, 0 when none. */
function calcRestartCountByLogDir(files: string[]): number {
  let max = -1;
  for (const f of files) {
    const m = /^(\d+)\.log(\..*)?$/.exec(f);
    if (m) max = Math.max(max, Number(m[1]));
  }
  return max + 1;
}

/** expansion.Expand for command/args/env: `$(VAR)` from the env, `$$` → `$`, unknown left as written. */
function expandVars(s: string, env: Map<string, string>): string {
  return s.replace(/\$\$|\$\(([^)]*)\)/g, (all, name: string | undefined) => {
    if (all === '$$') return '$';
    return name !== undefined && env.has(name) ? (env.get(name) as string) : all;
  });
}

function generateContainerConfig(
  ctx: RuntimeContext,
  container: Container,
  pod: Pod,
  restartCount: number,
  imageRef: string,
): ContainerConfig {
  const env = new Map<string, string>();
  const envs: KeyValue[] = [];
  for (const e of container.env ?? []) {
    const value = expandVars(e.value ?? '', env);
    env.set(e.name, value);
    envs.push({ key: e.name, value });
  }
  const resources: LinuxContainerResources = linuxContainerResources({});
  const limits = container.resources?.limits ?? {};
  const requests = container.resources?.requests ?? {};
  if (limits.memory !== undefined)
    resources.memory_limit_in_bytes = String(Math.round(parseQuantity(limits.memory)));
  const cpuRequest = requests.cpu ?? limits.cpu;
  // milliCPU → shares (min 2), quota over a 100 ms period, as the kubelet computes them
  resources.cpu_shares = String(
    cpuRequest ? Math.max(2, Math.floor((parseQuantity(cpuRequest) * 1000 * 1024) / 1000)) : 2,
  );
  if (limits.cpu !== undefined) {
    resources.cpu_period = '100000';
    resources.cpu_quota = String(Math.max(1000, Math.floor(parseQuantity(limits.cpu) * 100000)));
  }
  return {
    metadata: { name: container.name, attempt: restartCount },
    image: imageSpec({ image: imageRef, user_specified_image: container.image }),
    command: (container.command ?? []).map((s) => expandVars(s, env)),
    args: (container.args ?? []).map((s) => expandVars(s, env)),
    working_dir: container.workingDir ?? '',
    envs,
    mounts: [],
    labels: newContainerLabels(container, pod, ctx.config.ownershipLabel),
    annotations: newContainerAnnotations(container, pod, restartCount),
    log_path: `${container.name}/${restartCount}.log`,
    stdin: false,
    stdin_once: false,
    tty: false,
    // The kubelet gives each container its own PID namespace (unless shareProcessNamespace), so the
    // container's command is PID 1 and a shell without a TERM trap ignores SIGTERM until the grace ends.
    linux: {
      resources,
      security_context: linuxContainerSecurityContext({
        namespace_options: namespaceOption({
          network: pod.spec.hostNetwork ? 'NODE' : 'POD',
          pid: 'CONTAINER',
          ipc: 'POD',
        }),
      }),
    },
  };
}

export async function startContainer(
  ctx: RuntimeContext,
  podSandboxID: string,
  sandboxConfig: PodSandboxConfig,
  container: Container,
  pod: Pod,
  podStatus: PodStatusRT,
): Promise<StartResult> {
  const ref = { ...ctx.podRef(pod), container: container.name };
  const img = await ctx.imageManager.ensureImageExists(
    pod,
    container,
    containerFieldPath(pod, container.name),
    sandboxConfig,
  );
  if (img.error !== undefined) {
    recordContainerEvent(
      ctx,
      pod,
      container,
      'Warning',
      Reasons.FailedToCreateContainer,
      `Error: ${img.error}`,
    );
    return { message: img.message, error: img.error };
  }

  let restartCount = 0;
  const last = findContainerStatusByName(podStatus, container.name);
  if (last) restartCount = last.restartCount + 1;
  else if (ctx.logs) {
    const dir = `${buildPodLogsDirectory(ctx.config.podLogsDirectory, pod)}/${container.name}`;
    restartCount = await ctx.logs.readDir(dir).then(calcRestartCountByLogDir, () => 0);
  }

  let config: ContainerConfig;
  try {
    config = generateContainerConfig(ctx, container, pod, restartCount, img.imageRef);
  } catch (err) {
    const msg = grpcMessage(err);
    recordContainerEvent(ctx, pod, container, 'Warning', Reasons.FailedToCreateContainer, `Error: ${msg}`);
    return { message: msg, error: ErrCreateContainerConfig };
  }
  let containerID: string;
  try {
    containerID = await ctx.call('CreateContainer', { ...ref, attempt: restartCount }, () =>
      ctx.cri.createContainer(podSandboxID, config, sandboxConfig),
    );
  } catch (err) {
    const msg = grpcMessage(err);
    recordContainerEvent(ctx, pod, container, 'Warning', Reasons.FailedToCreateContainer, `Error: ${msg}`);
    return { message: msg, error: ErrCreateContainer };
  }
  recordContainerEvent(
    ctx,
    pod,
    container,
    'Normal',
    Reasons.CreatedContainer,
    `Created container: ${container.name}`,
  );

  try {
    await ctx.call('StartContainer', { ...ref, attempt: restartCount }, () =>
      ctx.cri.startContainer(containerID),
    );
  } catch (err) {
    const msg = grpcMessage(err);
    recordContainerEvent(ctx, pod, container, 'Warning', Reasons.FailedToStartContainer, `Error: ${msg}`);
    return { message: msg, error: ErrRunContainer };
  }
  recordContainerEvent(
    ctx,
    pod,
    container,
    'Normal',
    Reasons.StartedContainer,
    `Started container ${container.name}`,
  );

  const postStart = container.lifecycle?.postStart;
  if (postStart) {
    const msg = await runHandler(ctx, containerID, pod, container, postStart);
    if (msg !== undefined) {
      recordContainerEvent(
        ctx,
        pod,
        container,
        'Warning',
        Reasons.FailedPostStartHook,
        'PostStartHook failed',
      );
      await killContainer(
        ctx,
        pod,
        containerID,
        container.name,
        'FailedPostStartHook',
        'FailedPostStartHook',
      ).catch(() => {});
      return { message: msg, error: ErrPostStartHook };
    }
  }
  return { message: '' };
}

/**
 * Runs a lifecycle handler; resolves undefined on success, else the failure message. Exec runs through
 * ExecSync, sleep on the engine clock; httpGet/tcpSocket handlers are not run (treated as success).
 */
async function runHandler(
  ctx: RuntimeContext,
  containerID: string,
  pod: Pod,
  container: Container,
  handler: LifecycleHandler,
): Promise<string | undefined> {
  if (handler.exec) {
    const cmd = handler.exec.command ?? [];
    const fail = (why: string) =>
      `Exec lifecycle hook (${JSON.stringify(cmd)}) for Container "${container.name}" in Pod "${formatPod(pod)}" failed - error: ${why}, message: ""`;
    try {
      const out = await ctx.call('ExecSync', { ...ctx.podRef(pod), container: container.name }, () =>
        ctx.cri.execSync(containerID, cmd, 0),
      );
      if (out.exit_code !== 0) {
        return fail(
          `command '${cmd.join(' ')}' exited with ${out.exit_code}: ${Buffer.from(out.stderr).toString()}`,
        );
      }
      return undefined;
    } catch (err) {
      return fail(grpcMessage(err));
    }
  }
  if (handler.sleep) await ctx.clock.sleep(handler.sleep.seconds * 1000);
  return undefined;
}

/** setTerminationGracePeriod: deletion grace, else spec grace (or the failed probe's own), in seconds. */
function terminationGracePeriod(pod: Pod, container: Container, reason: ContainerKillReason): number {
  if (pod.metadata.deletionGracePeriodSeconds !== undefined) return pod.metadata.deletionGracePeriodSeconds;
  if (reason === 'StartupProbe' && container.startupProbe?.terminationGracePeriodSeconds !== undefined) {
    return container.startupProbe.terminationGracePeriodSeconds;
  }
  if (reason === 'LivenessProbe' && container.livenessProbe?.terminationGracePeriodSeconds !== undefined) {
    return container.livenessProbe.terminationGracePeriodSeconds;
  }
  return pod.spec.terminationGracePeriodSeconds ?? DefaultTerminationGracePeriodSeconds;
}

/**
 * killContainer. pod may be undefined (a pod we no longer know): pod and container are then rebuilt from
 * the container's labels and annotations. Rejects with the CRI error when StopContainer fails.
 */
export async function killContainer(
  ctx: RuntimeContext,
  pod: Pod | undefined,
  containerID: string,
  containerName: string,
  message: string,
  reason: ContainerKillReason,
  gracePeriodOverride?: number,
  signal?: AbortSignal,
): Promise<void> {
  let spec: Container | undefined;
  if (pod) {
    spec = getContainerSpec(pod, containerName);
    if (!spec) {
      throw new Error(
        `failed to get containerSpec "${containerName}" (id="${containerID}") in pod "${formatPod(pod)}" when killing container for reason "${message}"`,
      );
    }
  } else {
    ({ pod, container: spec } = await restoreSpecsFromContainerLabels(ctx, containerID));
  }
  let grace = terminationGracePeriod(pod, spec, reason);
  recordContainerEvent(
    ctx,
    pod,
    spec,
    'Normal',
    Reasons.KillingContainer,
    message || `Stopping container ${spec.name}`,
  );
  if (gracePeriodOverride !== undefined) grace = gracePeriodOverride;

  const preStop = spec.lifecycle?.preStop;
  if (preStop && grace > 0) grace -= await executePreStopHook(ctx, pod, containerID, spec, preStop, grace);
  grace = Math.max(grace, ctx.config.minimumGracePeriodSeconds);

  // The trace carries what the kubelet logs here: "Killing container with a grace period" gracePeriod=N,
  // preceded by "... with a grace period override" when the caller (a terminating pod's worker, an orphan
  // kill) passed one; a kill decided by SyncPod itself (probe, spec change) passes none.
  const call = {
    ...ctx.podRef(pod),
    container: spec.name,
    gracePeriodS: grace,
    ...(gracePeriodOverride !== undefined ? { override: true } : {}),
  };
  try {
    const stop = ctx.call('StopContainer', call, () => ctx.cri.stopContainer(containerID, grace));
    await (signal ? untilAborted(stop, signal) : stop);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}

/**
 * Waits for p unless the signal aborts first (then rejects with an AbortError). The abandoned call goes on in
 * the runtime; the kubelet's cancelled gRPC context does the same to containerd's StopContainer.
 */
function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    p.catch(() => undefined);
    return Promise.reject(abortError());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      p.catch(() => undefined);
      reject(abortError());
    };
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/** Runs preStop for at most grace seconds; returns the whole seconds it took. */
async function executePreStopHook(
  ctx: RuntimeContext,
  pod: Pod,
  containerID: string,
  container: Container,
  handler: LifecycleHandler,
  grace: number,
): Promise<number> {
  const start = ctx.clock.now();
  const abort = new AbortController();
  const hook = runHandler(ctx, containerID, pod, container, handler).then((msg) => {
    if (msg !== undefined)
      recordContainerEvent(ctx, pod, container, 'Warning', Reasons.FailedPreStopHook, 'PreStopHook failed');
  });
  await Promise.race([hook, ctx.clock.sleep(grace * 1000, abort.signal).catch(() => {})]);
  abort.abort();
  return Math.floor((ctx.clock.now() - start) / 1000);
}

/** restoreSpecsFromContainerLabels: a minimal pod and container from what the runtime kept. */
async function restoreSpecsFromContainerLabels(
  ctx: RuntimeContext,
  containerID: string,
): Promise<{ pod: Pod; container: Container }> {
  const resp = await ctx.call('ContainerStatus', {}, () => ctx.cri.containerStatus(containerID));
  const s = resp.status;
  if (!s) throw new Error(`container status is nil for "${containerID}"`);
  const l = getContainerInfoFromLabels(s.labels);
  const a = getContainerInfoFromAnnotations(s.annotations);
  const pod: Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: l.podName,
      namespace: l.podNamespace,
      uid: l.podUID,
      ...(a.podDeletionGracePeriod !== undefined
        ? { deletionGracePeriodSeconds: a.podDeletionGracePeriod }
        : {}),
    },
    spec: {
      containers: [],
      ...(a.podTerminationGracePeriod !== undefined
        ? { terminationGracePeriodSeconds: a.podTerminationGracePeriod }
        : {}),
    },
  };
  const container: Container = {
    name: l.containerName,
    image: s.image?.image ?? '',
    ...(a.preStopHandler ? { lifecycle: { preStop: a.preStopHandler } } : {}),
  };
  pod.spec.containers.push(container);
  return { pod, container };
}
