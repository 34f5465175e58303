import type { PassiveClock } from '../clock/clock.ts';
import type { RuntimeCondition, StatusResponse } from '../cri/types.ts';

/** A named health check whose failure blocks the sync loop (the PLEG registers one). */
export interface HealthCheck {
  name: string;
  fn: () => [boolean, string | undefined];
}

/**
 * runtimeState (pkg/kubelet/runtime.go): what the kubelet knows about the runtime's health, fed by
 * updateRuntimeUp (CRI Status every 5 s) and read by the sync loop before every iteration. While
 * runtimeErrors() is non-empty the loop skips ("Skipping pod synchronization") and backs off.
 */
export class RuntimeState {
  private lastBaseRuntimeSync = 0;
  private runtimeError: string | undefined;
  private networkError: string | undefined;
  private statusError: string | undefined;
  private readonly healthChecks: HealthCheck[] = [];

  constructor(
    private readonly clock: PassiveClock,
    private readonly baseRuntimeSyncThresholdMs: number,
  ) {}

  addHealthCheck(name: string, fn: HealthCheck['fn']): void {
    this.healthChecks.push({ name, fn });
  }

  setRuntimeSync(t: number): void {
    this.lastBaseRuntimeSync = t;
  }
  setRuntimeState(err: string | undefined): void {
    this.runtimeError = err;
  }
  setNetworkState(err: string | undefined): void {
    this.networkError = err;
  }

  get lastRuntimeSync(): number {
    return this.lastBaseRuntimeSync;
  }

  runtimeErrors(): string[] {
    const errs: string[] = [];
    if (this.lastBaseRuntimeSync === 0)
      errs.push('container runtime status check may not have completed yet');
    else if (this.lastBaseRuntimeSync + this.baseRuntimeSyncThresholdMs <= this.clock.now()) {
      errs.push('container runtime is down');
    }
    for (const hc of this.healthChecks) {
      const [ok, err] = hc.fn();
      if (!ok) errs.push(`${hc.name} is not healthy: ${err ?? ''}`);
    }
    if (this.runtimeError) errs.push(this.runtimeError);
    return errs;
  }

  /**
   * The last CRI Status call's failure, cleared by the next success. The kubelet only logs it ("Container
   * runtime sanity check failed") and blocks the loop after 30 s without a good Status; we also show it at once,
   * so a user sees an unreachable runtime within one check period.
   */
  setStatusError(err: string | undefined): void {
    this.statusError = err;
  }

  /** runtimeErrors() plus the last Status failure: what the node view reports. */
  reportedErrors(): string[] {
    const errs = this.runtimeErrors();
    return this.statusError ? [...errs, this.statusError] : errs;
  }

  networkErrors(): string | undefined {
    return this.networkError;
  }

  /**
   * The part of updateRuntimeUp after a successful CRI Status: network and runtime readiness from the
   * conditions, and the "last seen healthy" time only when RuntimeReady is true.
   */
  applyStatus(resp: StatusResponse): void {
    const conds = resp.status?.conditions ?? [];
    const network = conds.find((c) => c.type === 'NetworkReady');
    this.setNetworkState(
      network?.status ? undefined : `container runtime network not ready: ${fmtCondition(network)}`,
    );
    const runtime = conds.find((c) => c.type === 'RuntimeReady');
    if (!runtime?.status) {
      this.setRuntimeState(`container runtime not ready: ${fmtCondition(runtime)}`);
      return;
    }
    this.setRuntimeState(undefined);
    this.setRuntimeSync(this.clock.now());
  }
}

/** kubecontainer.RuntimeCondition String(): `Type=bool reason:R message:M`; a missing one prints <nil>. */
function fmtCondition(c: RuntimeCondition | undefined): string {
  if (!c) return '<nil>';
  return `${c.type}=${c.status} reason:${c.reason} message:${c.message}`;
}
