/**
 * Container logs as the kubelet serves them (kubelet_pods.go GetContainerLogs + kuberuntime/logs): which
 * instance of a container to read, found from the pod's v1 status the way validateContainerLogStatus does,
 * then that instance's CRI log file `<podLogsDirectory>/<ns>_<name>_<uid>/<container>/<restartCount>.log`,
 * with the CRI prefix (`<RFC 3339 time> <stream> <F|P> `) stripped.
 *
 * Nothing from the request reaches a path unchecked: the container name must be a DNS-1123 label that the
 * pod declares, the attempt is a number, and the file's real path (symlinks resolved) must lie inside the
 * pod's real log directory, which must itself lie inside the real podLogsDirectory.
 */
import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';
import type { ContainerStatus, Pod, Status } from '@syncscope/core/api';
import { badRequest, status } from './status.ts';

/** At most this much of the end of a log file is read (the kubelet streams; we answer in one piece). */
export const MAX_LOG_BYTES = 8 * 1024 * 1024;

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function isDns1123Label(s: string): boolean {
  return s.length <= 63 && DNS1123_LABEL.test(s);
}

/** Every container name of the pod: regular, init and ephemeral. */
function declaredContainers(pod: Pod): string[] {
  const spec = pod.spec as Pod['spec'] & { ephemeralContainers?: { name: string }[] };
  return [
    ...spec.containers.map((c) => c.name),
    ...(spec.initContainers ?? []).map((c) => c.name),
    ...(spec.ephemeralContainers ?? []).map((c) => c.name),
  ];
}

/**
 * The container the request is about: `container` if the pod declares it, the only regular container when
 * none is named, or a BadRequest with the API server's messages.
 */
export function resolveLogContainer(pod: Pod, container: string | undefined): string | Status {
  const name = pod.metadata.name ?? '';
  if (!container) {
    const regular = pod.spec.containers.map((c) => c.name);
    if (regular.length === 1) return regular[0] as string;
    return badRequest(
      `a container name must be specified for pod ${name}, choose one of: [${regular.join(' ')}]`,
    );
  }
  if (!isDns1123Label(container) || !declaredContainers(pod).includes(container)) {
    return badRequest(`container ${container} is not valid for pod ${name}`);
  }
  return container;
}

function findStatus(pod: Pod, container: string): ContainerStatus | undefined {
  const st = pod.status as (Pod['status'] & { ephemeralContainerStatuses?: ContainerStatus[] }) | undefined;
  return [
    ...(st?.containerStatuses ?? []),
    ...(st?.initContainerStatuses ?? []),
    ...(st?.ephemeralContainerStatuses ?? []),
  ].find((s) => s.name === container);
}

/**
 * The attempt (restart count) whose log file holds the logs asked for, or a BadRequest as the kubelet words
 * it. The newest instance has attempt = restartCount. `previous` is the instance in lastState.terminated:
 * restartCount-1 while a newer one runs or has ended, restartCount itself while the container waits to be
 * restarted (CrashLoopBackOff: the last one that ran is both "current" and "previous").
 */
export function logAttempt(pod: Pod, container: string, previous: boolean): number | Status {
  const podName = pod.metadata.name ?? '';
  const cs = findStatus(pod, container);
  if (!cs) return badRequest(`container "${container}" in pod "${podName}" is not available`);
  const n = cs.restartCount;
  const last = cs.lastState?.terminated;
  const { running, terminated, waiting } = cs.state ?? {};
  const isTerminated = `container "${container}" in pod "${podName}" is terminated`;
  if (previous) {
    if (!last?.containerID) {
      return badRequest(`previous terminated container "${container}" in pod "${podName}" not found`);
    }
    return waiting ? n : Math.max(0, n - 1);
  }
  if (running) return n;
  if (terminated) {
    if (terminated.containerID) return n;
    return last?.containerID ? Math.max(0, n - 1) : badRequest(isTerminated);
  }
  if (last) return last.containerID ? n : badRequest(isTerminated);
  if (waiting) {
    const why =
      waiting.reason === 'ErrImagePull'
        ? "image can't be pulled"
        : waiting.reason === 'ImagePullBackOff'
          ? 'trying and failing to pull image'
          : (waiting.reason ?? '');
    return badRequest(`container "${container}" in pod "${podName}" is waiting to start: ${why}`);
  }
  return badRequest(`container "${container}" in pod "${podName}" is waiting to start - no logs yet`);
}

function inside(dir: string, p: string): boolean {
  return p.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

const notFoundLog = (container: string, pod: string) =>
  status(404, 'NotFound', `log file for container "${container}" in pod "${pod}" not found`);

/**
 * Reads `<podLogsDirectory>/<ns>_<name>_<uid>/<container>/<attempt>.log` (its last MAX_LOG_BYTES) after
 * checking that its real path stays inside the pod's log directory. A missing file is a 404; a path that
 * escapes (a planted symlink) is a 400 that shows nothing of the target.
 */
export async function readPodLogFile(
  podLogsDirectory: string,
  pod: Pod,
  container: string,
  attempt: number,
): Promise<string | Status> {
  const { namespace, name, uid } = pod.metadata;
  const podName = name ?? '';
  if (!isDns1123Label(container) || !Number.isSafeInteger(attempt) || attempt < 0) {
    return badRequest(`container ${container} is not valid for pod ${podName}`);
  }
  const escapes = badRequest(
    `log file for container "${container}" in pod "${podName}" is outside the pod's log directory`,
  );
  let root: string;
  let podDir: string;
  let file: string;
  try {
    root = await realpath(podLogsDirectory);
    podDir = await realpath(join(podLogsDirectory, `${namespace}_${podName}_${uid}`));
    if (!inside(root, podDir)) return escapes;
    file = await realpath(join(podDir, container, `${attempt}.log`));
  } catch {
    return notFoundLog(container, podName);
  }
  if (!inside(podDir, file)) return escapes;
  // O_NOFOLLOW: the resolved path must not have become a symlink since; O_NONBLOCK: a FIFO cannot hang us.
  let fh: Awaited<ReturnType<typeof open>>;
  try {
    fh = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return notFoundLog(container, podName);
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return escapes;
    const length = Math.min(st.size, MAX_LOG_BYTES);
    const buf = Buffer.alloc(length);
    const { bytesRead } = await fh.read(buf, 0, length, st.size - length);
    let text = buf.subarray(0, bytesRead).toString('utf8');
    if (st.size > length) text = text.slice(text.indexOf('\n') + 1); // drop the cut first record
    return text;
  } finally {
    await fh.close();
  }
}

export interface CriLogOptions {
  /** Keep the last n records only. */
  tailLines?: number;
  /** Drop records written before this time (ms since the epoch); applied after tailLines, as the kubelet does. */
  sinceMs?: number;
  /** Stop once this many bytes of output are written (the last line may be cut). */
  limitBytes?: number;
  /** Prefix each line with its RFC 3339 time, as `kubectl logs --timestamps`. */
  timestamps?: boolean;
}

/**
 * CRI log records → the container's output. A record is `<time> <stdout|stderr> <F|P> <content>`; F ends a
 * line, P is part of one (no newline after it). Records that do not parse are dropped, as the kubelet does.
 */
export function parseCriLog(text: string, opts: CriLogOptions = {}): string {
  let records = text.split('\n');
  if (records[records.length - 1] === '') records.pop();
  if (opts.tailLines !== undefined) records = opts.tailLines === 0 ? [] : records.slice(-opts.tailLines);
  let out = '';
  let midLine = false;
  for (const rec of records) {
    const m = /^(\S+) (stdout|stderr) ([FP]) ?(.*)$/.exec(rec);
    if (!m) continue;
    const [, time, , tag, content] = m as unknown as [string, string, string, string, string];
    if (opts.sinceMs !== undefined && !(Date.parse(time) >= opts.sinceMs)) continue;
    if (opts.timestamps && !midLine) out += `${time} `;
    out += content;
    midLine = tag === 'P';
    if (!midLine) out += '\n';
    if (opts.limitBytes !== undefined && Buffer.byteLength(out) >= opts.limitBytes) break;
  }
  if (opts.limitBytes !== undefined && Buffer.byteLength(out) > opts.limitBytes) {
    out = Buffer.from(out).subarray(0, opts.limitBytes).toString('utf8');
  }
  return out;
}
