import { type ContainerEventType, CriError, GrpcCode, msToNs } from '../cri/types.ts';
import {
  type ContainerRecord,
  exitReason,
  type SandboxRecord,
  toContainerStatus,
  toPodSandboxStatus,
} from './sim-state.ts';
import { SimStore } from './sim-store.ts';

/**
 * How containers end in the simulated node, shared by every CRI method: an exit is recorded once (reason
 * from the code, OOM or unknown), the container's processes and ports go with PID 1, a sandbox stop kills
 * its containers, and every change is published on the GetContainerEvents stream.
 */
export abstract class SimLifecycle extends SimStore {
  // --- exits -------------------------------------------------------------------------------------------

  /** Records an exit (once): reason from the code (or OOM / unknown), processes and ports released. */
  protected override finish(c: ContainerRecord, code: number): void {
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
  protected override kill(c: ContainerRecord): void {
    if (c.proc && !c.finishedAt) this.finish(c, 137);
  }

  protected override stopSandbox(sb: SandboxRecord): void {
    for (const c of this.containersOf(sb.id)) this.kill(c);
    sb.notReady = true;
    this.net.release(sb.ip);
    sb.ip = '';
  }

  protected deleteContainer(c: ContainerRecord): void {
    this.dropContainer(c);
    this.emit('CONTAINER_DELETED_EVENT', c);
  }

  protected findContainer(method: string, id: string): ContainerRecord {
    const c = this.containers.get(id);
    if (!c)
      throw this.err(
        method,
        GrpcCode.NOT_FOUND,
        `an error occurred when try to find container "${id}": not found`,
      );
    return c;
  }

  protected err(method: string, code: number, details: string): CriError {
    return new CriError(method, code, details);
  }

  protected override emit(type: ContainerEventType, c: ContainerRecord): void {
    const sb = this.sandboxes.get(c.sandboxId);
    this.publish({
      container_id: c.id,
      container_event_type: type,
      created_at: msToNs(this.clock.now()),
      pod_sandbox_status: sb ? toPodSandboxStatus(sb) : null,
      containers_statuses: sb ? this.containersOf(sb.id).map(toContainerStatus) : [],
    });
  }
}
