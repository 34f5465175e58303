import type { Clock } from '../clock/clock.ts';
import { CriError, codeName, GrpcCode } from '../cri/types.ts';
import { DEFAULT_PULL_DELAY_MS } from './images.ts';

/** The faults that last (a one-shot fault — an exit, a dead sandbox — is over once applied). */
export type LastingFault = 'outage' | 'failNext' | 'latency' | 'imageMissing' | 'slowPull';

/**
 * One fault in effect, as GET /api/v1/sim/faults lists it. `target` names what it applies to (the CRI
 * method, the image as given) and with `kind` identifies it for clearOne; `remainingMs` (clock time) is
 * set for an outage.
 */
export interface ActiveFault {
  kind: LastingFault;
  target?: string;
  detail: string;
  remainingMs?: number;
}

/**
 * What the fault layer needs from the runtime it belongs to. SimRuntime implements these; each returns a
 * description, or throws an Error whose message says why the fault could not apply (unknown id, ...).
 */
export interface FaultHooks {
  exitContainer(id: string, code: number): string;
  unknownContainer(id: string): string;
  killSandbox(id: string): string;
  removeImage(name: string, fromRegistry: boolean): string;
  restoreImage(name: string): string;
  slowPull(name: string, ms: number): string;
  setNetworkReady(ready: boolean): string;
  /** A runtime outage began: server streams break. */
  outageStarted(): void;
}

/** The CRI method names faults key on (as in the proto). */
const CRI_METHODS = [
  'Version',
  'Status',
  'RunPodSandbox',
  'StopPodSandbox',
  'RemovePodSandbox',
  'PodSandboxStatus',
  'ListPodSandbox',
  'CreateContainer',
  'StartContainer',
  'StopContainer',
  'RemoveContainer',
  'ListContainers',
  'ContainerStatus',
  'ExecSync',
  'GetContainerEvents',
  'ImageStatus',
  'PullImage',
  'ListImages',
  'RemoveImage',
] as const;

/** `startContainer` or `StartContainer` → `StartContainer`; throws on a method the runtime does not have. */
export function criMethodName(method: string): string {
  const m = method.charAt(0).toUpperCase() + method.slice(1);
  if (!(CRI_METHODS as readonly string[]).includes(m)) throw new Error(`unknown CRI method "${method}"`);
  return m;
}

/**
 * Fault injection for the simulated node, owned by one SimRuntime (`sim.faults`). The server's
 * `POST /api/v1/sim/...` endpoints and tests call these; each returns a one-line description for the UI.
 *
 * Call-level faults (failNext, outage, latency) act in `gate()`, which every CRI method awaits first.
 * They are timed on the runtime's clock. During an outage containers keep running, as containers survive
 * a containerd restart.
 */
export class Faults {
  private readonly failures = new Map<string, { n: number; code: number; message: string }>();
  private outageUntil = 0;
  private latencyMs = 0;
  /** Images made missing (as given, with the hook's description) and images made slow to pull. */
  private readonly missing = new Map<string, string>();
  private readonly slow = new Map<string, { ms: number; detail: string }>();

  constructor(
    private readonly clock: Clock,
    private readonly hooks: FaultHooks,
  ) {}

  /** The next n calls of `method` fail with `code` (default UNKNOWN) and `message`. */
  failNext(method: string, n: number, code: number = GrpcCode.UNKNOWN, message = 'injected failure'): string {
    const m = criMethodName(method);
    if (n <= 0) this.failures.delete(m);
    else this.failures.set(m, { n, code, message });
    return `next ${n} ${m} call${n === 1 ? '' : 's'} fail with ${codeName(code)}: ${message}`;
  }

  /** Every call fails UNAVAILABLE for ms of clock time; open event streams break at once. */
  outage(ms: number): string {
    this.outageUntil = Math.max(this.outageUntil, this.clock.now() + ms);
    this.hooks.outageStarted();
    return `runtime unavailable for ${fmtMs(ms)}`;
  }

  get inOutage(): boolean {
    return this.clock.now() < this.outageUntil;
  }

  /** Every call takes ms of clock time before it runs (0 turns it off). */
  latency(ms: number): string {
    this.latencyMs = Math.max(0, ms);
    return ms > 0 ? `every runtime call takes ${fmtMs(ms)} longer` : 'added latency removed';
  }

  exitContainer(id: string, code: number): string {
    return this.hooks.exitContainer(id, code);
  }

  unknownContainer(id: string): string {
    return this.hooks.unknownContainer(id);
  }

  killSandbox(id: string): string {
    return this.hooks.killSandbox(id);
  }

  /** The image disappears from the node (a later pull brings it back). */
  removeImage(name: string): string {
    return this.hooks.removeImage(name, false);
  }

  /** The image disappears from the node and the registry: pulls fail until restoreImage. */
  imageMissing(name: string): string {
    const detail = this.hooks.removeImage(name, true);
    this.missing.set(name, detail);
    return detail;
  }

  restoreImage(name: string): string {
    const detail = this.hooks.restoreImage(name);
    this.missing.delete(name);
    return detail;
  }

  /** Pulls of the image take ms of clock time; the catalogue's default delay ends the fault. */
  slowPull(name: string, ms: number): string {
    const detail = this.hooks.slowPull(name, ms);
    if (ms === DEFAULT_PULL_DELAY_MS) this.slow.delete(name);
    else this.slow.set(name, { ms, detail });
    return detail;
  }

  networkReady(ready: boolean): string {
    return this.hooks.setNetworkReady(ready);
  }

  /** The lasting faults in effect now, call-level first. */
  active(): ActiveFault[] {
    const out: ActiveFault[] = [];
    const now = this.clock.now();
    if (now < this.outageUntil) {
      const remainingMs = this.outageUntil - now;
      out.push({
        kind: 'outage',
        detail: `runtime unavailable for ${Math.ceil(remainingMs / 1000)}s more`,
        remainingMs,
      });
    }
    for (const [method, f] of this.failures) {
      out.push({
        kind: 'failNext',
        target: method,
        detail: `next ${f.n} ${method} call${f.n === 1 ? '' : 's'} fail with ${codeName(f.code)}: ${f.message}`,
      });
    }
    if (this.latencyMs > 0)
      out.push({ kind: 'latency', detail: `every runtime call takes ${fmtMs(this.latencyMs)} longer` });
    for (const [image, detail] of this.missing) out.push({ kind: 'imageMissing', target: image, detail });
    for (const [image, s] of this.slow) out.push({ kind: 'slowPull', target: image, detail: s.detail });
    return out;
  }

  /** Ends one lasting fault (kind and target as active() lists it); throws when it is not in effect. */
  clearOne(kind: string, target?: string): string {
    const gone = (what: string) => new Error(`no ${what} fault is in effect`);
    switch (kind) {
      case 'outage':
        if (!this.inOutage) throw gone('outage');
        this.outageUntil = 0;
        return 'runtime outage ended';
      case 'failNext': {
        const m = target === undefined ? undefined : criMethodName(target);
        if (m === undefined || !this.failures.delete(m)) throw gone(`failNext ${target ?? ''}`.trim());
        return `${m} calls no longer fail`;
      }
      case 'latency':
        if (this.latencyMs === 0) throw gone('latency');
        return this.latency(0);
      case 'imageMissing':
        if (target === undefined || !this.missing.has(target))
          throw gone(`imageMissing ${target ?? ''}`.trim());
        return this.restoreImage(target);
      case 'slowPull':
        if (target === undefined || !this.slow.has(target)) throw gone(`slowPull ${target ?? ''}`.trim());
        return this.slowPull(target, DEFAULT_PULL_DELAY_MS);
      default:
        throw new Error(`unknown fault kind "${kind}"`);
    }
  }

  /** Ends every lasting fault: call faults (failNext, outage, latency), missing images and slow pulls. */
  clear(): string {
    const n = this.active().length;
    this.failures.clear();
    this.outageUntil = 0;
    this.latencyMs = 0;
    for (const image of [...this.missing.keys()]) this.restoreImage(image);
    for (const image of [...this.slow.keys()]) this.slowPull(image, DEFAULT_PULL_DELAY_MS);
    return n === 0 ? 'no fault was in effect' : `${n} fault${n === 1 ? '' : 's'} cleared`;
  }

  /** Awaited at the start of every CRI call; throws the injected CriError, if any. */
  async gate(method: string): Promise<void> {
    if (this.latencyMs > 0) await this.clock.sleep(this.latencyMs);
    this.check(method);
  }

  /** The synchronous part of gate (for the event stream, which is not a promise). */
  check(method: string): void {
    if (this.inOutage) throw new CriError(method, GrpcCode.UNAVAILABLE, 'connection refused');
    const f = this.failures.get(method);
    if (!f) return;
    if (--f.n <= 0) this.failures.delete(method);
    throw new CriError(method, f.code, f.message);
  }
}

function fmtMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
