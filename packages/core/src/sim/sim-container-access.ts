// SimRuntime's ExecSync and ReopenContainerLog calls and its probe-side view of running containers.
import { type ExecSyncResponse, GrpcCode } from '../cri/types.ts';
import { execInContainer } from './container-process.ts';
import type { ListenerKind } from './process.ts';
import { newId, type SimCallContext } from './sim-call-context.ts';
import { containerState, type SandboxRecord } from './sim-state.ts';

/**
 * Reaching into the simulated node's running containers: the ExecSync and ReopenContainerLog CRI calls,
 * and the probe-side view (tests and the node view) of their ports, the pod network and their exits.
 * A part SimRuntime owns, over its shared call context.
 */
export class SimContainerAccess {
  constructor(private readonly sim: SimCallContext) {}

  /** ExecSync; `stdin` (beyond the CRI's) is what the command reads, whole: the node's streaming exec. */
  async execSync(id: string, cmd: string[], timeout: number, stdin = ''): Promise<ExecSyncResponse> {
    await this.sim.call('ExecSync');
    const c = this.sim.store.containers.get(id);
    if (!c)
      throw this.sim.life.err(
        'ExecSync',
        GrpcCode.NOT_FOUND,
        `failed to exec in container: failed to find container "${id}" in store: not found`,
      );
    const state = containerState(c);
    if (state !== 'CONTAINER_RUNNING')
      throw this.sim.life.err(
        'ExecSync',
        GrpcCode.UNKNOWN,
        `failed to exec in container: container is in ${state} state`,
      );
    const sb = this.sim.store.sandboxes.get(c.sandboxId) as SandboxRecord;
    const r = await execInContainer(this.sim.deps, c, sb, cmd, timeout, newId(), stdin);
    return { stdout: Buffer.from(r.stdout), stderr: Buffer.from(r.stderr), exit_code: r.exitCode };
  }

  /** containerd's ReopenContainerLog: a new log file at the container's log path, for a running container. */
  async reopenContainerLog(id: string): Promise<void> {
    await this.sim.call('ReopenContainerLog');
    const c = this.sim.store.containers.get(id);
    if (!c)
      throw this.sim.life.err(
        'ReopenContainerLog',
        GrpcCode.NOT_FOUND,
        `an error occurred when try to find container "${id}": not found`,
      );
    if (containerState(c) !== 'CONTAINER_RUNNING' || !c.proc)
      throw this.sim.life.err('ReopenContainerLog', GrpcCode.UNKNOWN, 'container is not running');
    try {
      c.proc.log?.reopen();
    } catch (e) {
      throw this.sim.life.err(
        'ReopenContainerLog',
        GrpcCode.UNKNOWN,
        `failed to create and open log files: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  }

  // --- probe-side view (tests and the node view; never blocks but for the pod network's answer) ---------

  /** Whether a process of this container has `port` bound. */
  isListening(containerId: string, port: number): boolean {
    return this.sim.net.listenersOf(containerId).some((l) => l.port === port);
  }

  listeningPorts(containerId: string): { port: number; kind: ListenerKind }[] {
    return this.sim.net.listenersOf(containerId);
  }

  /** HTTP GET from the node to `host:port` (a pod IP, or the node IP for host-network pods) → status code. */
  async httpGet(host: string, port: number, path = '/'): Promise<number> {
    return (await this.sim.net.httpGet(host, port, path)).status;
  }

  /** TCP connect from the node; rejects with "connect: connection refused" when nothing listens. */
  tcpConnect(host: string, port: number): Promise<void> {
    return this.sim.net.connect(host, port);
  }

  /** Resolves when the container has exited (at once if it has); rejects for an unknown id. */
  whenExited(containerId: string): Promise<void> {
    const c = this.sim.store.containers.get(containerId);
    return c ? c.exited : Promise.reject(new Error(`no container ${containerId}`));
  }

  /** The pod IP of a sandbox ('' for host network or stopped), for probes. */
  podIP(sandboxId: string): string {
    return this.sim.store.sandboxes.get(sandboxId)?.ip ?? '';
  }
}
