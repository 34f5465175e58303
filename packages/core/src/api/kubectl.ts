/**
 * What `kubectl get pods` prints for a Pod: the NAME, READY, STATUS, RESTARTS and AGE columns, computed the
 * way kubectl's table printer does (pkg/printers/internalversion printPod, v1.32) and its duration helpers
 * (k8s.io/apimachinery/pkg/util/duration). The dashboard shows these strings, so a kubectl user reads our
 * pods table exactly as they would read their terminal.
 *
 * Pure and browser-safe: every function takes `now` (ms since the epoch, on the engine's clock) instead of
 * reading the time.
 */
import {
  type ContainerState,
  type ContainerStatus,
  type Pod,
  type PodCondition,
  parseRFC3339,
} from './v1.ts';

/** The reason the node controller writes on pods of an unreachable node (kubectl prints them as Unknown). */
export const NODE_UNREACHABLE_POD_REASON = 'NodeLost';

/** One row of `kubectl get pods`, plus the numbers behind the strings. */
export interface PodRow {
  name: string;
  namespace: string;
  /** READY: "ready/total", e.g. "1/2" (sidecars count as containers). */
  ready: string;
  /** STATUS: Running, ContainerCreating, Init:0/2, CrashLoopBackOff, Completed, Terminating, ... */
  status: string;
  /** RESTARTS: "0", or "3 (40s ago)" once a restart has a known finish time. */
  restarts: string;
  /** AGE since metadata.creationTimestamp, e.g. "5s", "3m10s", "2d4h"; "<unknown>" without one. */
  age: string;
  readyContainers: number;
  totalContainers: number;
  restartCount: number;
  /** finishedAt of the most recent restart counted in RESTARTS (ms), or null. */
  lastRestartTime: number | null;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * HumanDuration: about 2–3 significant figures ("45s", "119s", "3m10s", "25m", "5h3m", "20h", "2d4h", "30d",
 * "2y100d"). Up to 2 s in the future reads as "0s" (clock skew); further is "<invalid>". This is the form
 * kubectl uses for AGE and for the "(… ago)" of RESTARTS.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}

/** ShortHumanDuration: one unit only ("45s", "3m", "5h", "12d", "2y"), same skew rule as humanDuration. */
export function shortHumanDuration(ms: number): string {
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${Math.trunc(hours / 24)}d`;
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** translateTimestampSince: the age of an RFC 3339 time at `now`, "<unknown>" when unset or unparsable. */
export function translateTimestampSince(timestamp: string | undefined | null, now: number): string {
  const t = parseRFC3339(timestamp);
  return t === null ? '<unknown>' : humanDuration(now - t);
}

function conditionTrue(conditions: PodCondition[] | undefined, type: string): boolean {
  return conditions?.find((c) => c.type === type)?.status === 'True';
}

/** Status text of a terminated container without a reason: "Signal:9" or "ExitCode:3". */
function terminatedWithoutReason(state: ContainerState): string {
  const t = state.terminated;
  if (!t) return '';
  return t.signal ? `Signal:${t.signal}` : `ExitCode:${t.exitCode}`;
}

/** Tracks RESTARTS and the finish time of the latest counted restart. */
class RestartTally {
  count = 0;
  last: number | null = null;
  add(cs: ContainerStatus): void {
    this.count += cs.restartCount ?? 0;
    const finished = parseRFC3339(cs.lastState?.terminated?.finishedAt);
    if (finished !== null && (this.last === null || finished > this.last)) this.last = finished;
  }
}

/**
 * printPod: the `kubectl get pods` row of a pod at `now`.
 *
 * STATUS starts from status.reason or the phase, then (as kubectl does) init containers are walked in order
 * and the first unfinished one decides (Init:<reason>, Init:ExitCode:N, Init:i/n); once initialised the app
 * containers are walked from last to first, so the first container with a waiting or terminated reason
 * wins. A pod with deletionTimestamp that has not reached a terminal phase prints Terminating.
 */
export function printPod(pod: Pod, now: number): PodRow {
  const status = pod.status;
  const spec = pod.spec;
  const initSpecs = spec.initContainers ?? [];
  const restartable = new Set(initSpecs.filter((c) => c.restartPolicy === 'Always').map((c) => c.name));
  const phase: string = status?.phase ?? '';
  let reason: string = status?.reason || phase;
  if (status?.conditions?.some((c) => c.type === 'PodScheduled' && c.reason === 'SchedulingGated')) {
    reason = 'SchedulingGated';
  }
  const totalContainers = spec.containers.length + restartable.size;
  let readyContainers = 0;

  const all = new RestartTally();
  const sidecars = new RestartTally();
  let initializing = false;
  const initStatuses = status?.initContainerStatuses ?? [];
  for (const [i, cs] of initStatuses.entries()) {
    all.add(cs);
    const isSidecar = restartable.has(cs.name);
    if (isSidecar) sidecars.add(cs);
    const state = cs.state ?? {};
    if (state.terminated && state.terminated.exitCode === 0) continue;
    if (isSidecar && cs.started) {
      if (cs.ready) readyContainers++;
      continue;
    }
    if (state.terminated) {
      reason = state.terminated.reason
        ? `Init:${state.terminated.reason}`
        : `Init:${terminatedWithoutReason(state)}`;
    } else if (state.waiting?.reason && state.waiting.reason !== 'PodInitializing') {
      reason = `Init:${state.waiting.reason}`;
    } else {
      reason = `Init:${i}/${initSpecs.length}`;
    }
    initializing = true;
    break;
  }

  let restarts = all;
  if (!initializing || conditionTrue(status?.conditions, 'Initialized')) {
    restarts = sidecars;
    let hasRunning = false;
    const statuses = status?.containerStatuses ?? [];
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i] as ContainerStatus;
      restarts.add(cs);
      const state = cs.state ?? {};
      if (state.waiting?.reason) reason = state.waiting.reason;
      else if (state.terminated?.reason) reason = state.terminated.reason;
      else if (state.terminated) reason = terminatedWithoutReason(state);
      else if (cs.ready && state.running) {
        hasRunning = true;
        readyContainers++;
      }
    }
    // A pod whose last container completed while another still runs is not "Completed".
    if (reason === 'Completed' && hasRunning) {
      reason = conditionTrue(status?.conditions, 'Ready') ? 'Running' : 'NotReady';
    }
  }

  const deleting = Boolean(pod.metadata.deletionTimestamp);
  if (deleting && status?.reason === NODE_UNREACHABLE_POD_REASON) reason = 'Unknown';
  else if (deleting && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';

  const restartsText =
    restarts.count !== 0 && restarts.last !== null
      ? `${restarts.count} (${humanDuration(now - restarts.last)} ago)`
      : String(restarts.count);

  return {
    name: pod.metadata.name,
    namespace: pod.metadata.namespace ?? 'default',
    ready: `${readyContainers}/${totalContainers}`,
    status: reason,
    restarts: restartsText,
    age: translateTimestampSince(pod.metadata.creationTimestamp, now),
    readyContainers,
    totalContainers,
    restartCount: restarts.count,
    lastRestartTime: restarts.last,
  };
}
