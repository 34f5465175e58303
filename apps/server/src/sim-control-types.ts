/**
 * The simulated node's controls as the server's routes see them: its fault layer, an exec into a running
 * container, its clock and the trace record of an applied fault. Implemented in process by the SimRuntime
 * (app.ts) and over the control socket for a node in its own process (sim-node/client.ts).
 */
import type { ActiveFault } from '@syncscope/core';
import type { RuntimeService } from '@syncscope/core/cri';
import type { TracePayload } from '@syncscope/core/trace';

/**
 * What the routes use of SimRuntime.faults (structurally the Faults class). Each returns a description, or
 * throws (rejects) with the reason the fault cannot apply. In process the answer is at once; a node in its
 * own process answers over its control socket (sim-node/client.ts).
 */
export type Answer = string | Promise<string>;
export interface SimFaults {
  exitContainer(id: string, code: number): Answer;
  unknownContainer(id: string): Answer;
  killSandbox(id: string): Answer;
  outage(ms: number): Answer;
  failNext(method: string, n: number, code?: number): Answer;
  imageMissing(name: string): Answer;
  restoreImage(name: string): Answer;
  slowPull(name: string, ms: number): Answer;
  latency(ms: number): Answer;
  clear(): Answer;
  /** Ends one lasting fault, named as active() lists it. */
  clearOne(kind: string, target?: string): Answer;
  active(): ActiveFault[] | Promise<ActiveFault[]>;
}

/** A command run to its end in a container: what it wrote, and its exit code. */
export interface ExecResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Handed to createHttpApp by buildApp when the node is our simulator; absent for a real runtime. */
export interface SimControl {
  runtime: { faults: SimFaults } & Pick<RuntimeService, 'listPodSandbox' | 'listContainers'>;
  /** Runs `cmd` in a running container, `stdin` read whole (a pod's exec); rejects with the runtime's message. */
  exec?(containerId: string, cmd: string[], stdin: string, timeoutS: number): Promise<ExecResult>;
  /** Present only when the server owns a RealClock: PUT /api/v1/sim/speed sets it (and the node's, first). */
  clock?: { readonly speed: number; setSpeed(speed: number): void | Promise<void> };
  /** Records the `sim.fault` trace event of an applied fault. */
  record(ev: Extract<TracePayload, { type: 'sim.fault' }>): void;
}
