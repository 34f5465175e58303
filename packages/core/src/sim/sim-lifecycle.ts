import type { Clock } from '../clock/clock.ts';
import { type ContainerEventType, CriError, GrpcCode, msToNs } from '../cri/types.ts';
import type { SimNetwork } from './network.ts';
import {
  type ContainerRecord,
  exitReason,
  type SandboxRecord,
  toContainerStatus,
  toPodSandboxStatus,
} from './sim-state.ts';
import type { SimStore } from './sim-store.ts';

/**
 * How containers end in the simulated node, shared by every CRI method and the fault hooks: an exit is
 * recorded once (reason from the code, OOM or unknown), the container's processes and ports go with PID 1,
 * a sandbox stop kills its containers, and every change is published on the GetContainerEvents stream.
 * A part SimRuntime owns, over the same store; only stopContainer waits (on the clock, up to the timeout).
 */
export class SimLifecycle {
  constructor(
    private readonly clock: Clock,
    private readonly store: SimStore,
    private readonly net: SimNetwork,
  ) {}

  // --- exits -------------------------------------------------------------------------------------------

  /** Records an exit (once): reason from the code (or OOM / unknown), processes and ports released. */
  finish(c: ContainerRecord, code: number): void {
    if (c.finishedAt || !c.proc) return;
    c.finishedAt = this.clock.now();
    if (c.unknown) {
      c.unknown = false;
      c.exitCode = 255;
      c.reason = 'Unknown';
    } else {
      c.exitCode = code;
      c.reason = exitReason(code, c.oomKilled);
    }
    const proc = c.proc;
    proc.log?.close();
    proc.kill.abort(); // PID 1 is gone: the kernel kills everything else in the container
    this.net.releaseContainer(c.id);
    c.markExited();
    this.emit('CONTAINER_STOPPED_EVENT', c);
  }

  /** SIGKILL: the container exits 137 at once. */
  kill(c: ContainerRecord): void {
    if (c.proc && !c.finishedAt) this.finish(c, 137);
  }

  /**
   * StopContainer's wait: SIGTERM, then up to `timeout` seconds for the exit, then SIGKILL. Only a PID 1
   * (own pid namespace, as the kubelet asks for) may ignore SIGTERM. In the sandbox's shared pid namespace
   * (the CRI default when a container sets none) the pause process is PID 1, and SIGTERM's default action
   * ends the container at once with 143, as containerd shows.
   */
  async stopContainer(c: ContainerRecord, timeout: number): Promise<void> {
    if (!c.proc || c.finishedAt) return;
    if (timeout > 0 && !c.unknown) {
      const handled = c.proc.signals.deliverTerm();
      if (!handled && c.config.linux?.security_context?.namespace_options?.pid !== 'CONTAINER') {
        this.finish(c, 143);
        return;
      }
      const timer = new AbortController();
      const grace = this.clock.sleep(timeout * 1000, timer.signal).catch(() => undefined);
      await Promise.race([c.exited, grace]);
      timer.abort();
    }
    this.kill(c);
  }

  /** containerd marks a container whose start failed EXITED 128 StartError and returns the error. */
  failStart(c: ContainerRecord, text: string): never {
    c.finishedAt = this.clock.now();
    c.exitCode = 128;
    c.reason = 'StartError';
    c.message = text;
    c.markExited();
    this.emit('CONTAINER_STOPPED_EVENT', c);
    throw this.err('StartContainer', GrpcCode.UNKNOWN, text);
  }

  stopSandbox(sb: SandboxRecord): void {
    for (const c of this.store.containersOf(sb.id)) this.kill(c);
    sb.notReady = true;
    this.net.release(sb.ip);
    sb.ip = '';
  }

  deleteContainer(c: ContainerRecord): void {
    this.store.dropContainer(c);
    this.emit('CONTAINER_DELETED_EVENT', c);
  }

  findContainer(method: string, id: string): ContainerRecord {
    const c = this.store.containers.get(id);
    if (!c)
      throw this.err(
        method,
        GrpcCode.NOT_FOUND,
        `an error occurred when try to find container "${id}": not found`,
      );
    return c;
  }

  err(method: string, code: number, details: string): CriError {
    return new CriError(method, code, details);
  }

  emit(type: ContainerEventType, c: ContainerRecord): void {
    const sb = this.store.sandboxes.get(c.sandboxId);
    this.store.publish({
      container_id: c.id,
      container_event_type: type,
      created_at: msToNs(this.clock.now()),
      pod_sandbox_status: sb ? toPodSandboxStatus(sb) : null,
      containers_statuses: sb ? this.store.containersOf(sb.id).map(toContainerStatus) : [],
    });
  }
}
