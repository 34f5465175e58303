/**
 * Fault injection on the simulated node, as the HTTP API describes it (`POST /api/v1/sim/faults`): a fault
 * names pods and containers the way a user sees them (namespace, pod name, container name); applyFault finds
 * the runtime ids through the CRI — ListPodSandbox / ListContainers by the kubelet's labels, the newest
 * live instance — and hands them to the SimRuntime's fault layer (packages/core/src/sim/faults.ts).
 *
 * Called from request handlers only; the CRI lists may wait on an injected latency, and fail UNAVAILABLE
 * during an outage (answered 503).
 */

import type { ActiveFault } from '@syncscope/core';
import {
  type Container,
  CriError,
  codeName,
  type PodSandbox,
  type RuntimeService,
} from '@syncscope/core/cri';
import type { TracePayload } from '@syncscope/core/trace';
import type { Engine } from './engine.ts';
import { badRequest, notFound, StatusError, status } from './status.ts';

/**
 * What the routes use of SimRuntime.faults (structurally the Faults class). Each returns a description, or
 * throws (rejects) with the reason the fault cannot apply. In process the answer is at once; a node in its
 * own process answers over its control socket (sim-node/client.ts).
 */
type Answer = string | Promise<string>;
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

const FAULT_KINDS = [
  'containerExit',
  'containerUnknown',
  'sandboxDie',
  'outage',
  'failNext',
  'imageMissing',
  'imageRestore',
  'slowPull',
  'latency',
  'clear',
] as const;
type FaultKind = (typeof FAULT_KINDS)[number];

/** The faults that last until they end or are cleared, as GET /api/v1/sim/faults lists them. */
const LASTING = [
  'outage',
  'failNext',
  'latency',
  'imageMissing',
  'slowPull',
] as const satisfies readonly ActiveFault['kind'][];

const POD_UID_LABEL = 'io.kubernetes.pod.uid';
const CONTAINER_NAME_LABEL = 'io.kubernetes.container.name';

type Body = Record<string, unknown>;

/** A 400 naming the field, as for every bad input of this API. */
function badField(field: string, message: string): StatusError {
  return new StatusError(
    badRequest(`invalid value for ${field}: ${message}`, [{ field, reason: 'FieldValueInvalid', message }]),
  );
}

function str(b: Body, field: string): string {
  const v = b[field];
  if (typeof v !== 'string' || v === '') throw badField(field, 'must be a non-empty string');
  return v;
}

function num(b: Body, field: string, min: number, max: number, integer = false): number {
  const v = b[field];
  if (
    typeof v !== 'number' ||
    !Number.isFinite(v) ||
    v < min ||
    v > max ||
    (integer && !Number.isInteger(v))
  ) {
    throw badField(field, `must be ${integer ? 'an integer' : 'a number'} in [${min}, ${max}]`);
  }
  return v;
}

/** A gRPC code as a number (0–16) or a name ("Unavailable", "UNAVAILABLE", "DeadlineExceeded"). */
function grpcCode(b: Body): number | undefined {
  const v = b.code;
  if (v === undefined) return undefined;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 1 && v <= 16) return v;
  if (typeof v === 'string') {
    const want = v.replace(/_/g, '').toLowerCase();
    for (let c = 1; c <= 16; c++) if (codeName(c).toLowerCase() === want) return c;
    if (want === 'cancelled') return 1;
  }
  throw badField('code', 'must be a gRPC status code from 1 to 16, or its name');
}

const newest = <T extends { created_at: string }>(a: T, b: T) =>
  BigInt(b.created_at) > BigInt(a.created_at) ? 1 : -1;

async function podUID(engine: Engine, b: Body): Promise<{ uid: string; ref: string }> {
  const ns = str(b, 'namespace');
  const name = str(b, 'pod');
  const pod = engine.getPod(ns, name);
  if (!pod?.metadata.uid) throw new StatusError(notFound(name));
  return { uid: pod.metadata.uid, ref: `${ns}/${name}` };
}

/** The newest instance of the container in an acceptable state, or a 404 / 409 saying why not. */
async function containerID(
  sim: SimControl,
  engine: Engine,
  b: Body,
  states: Container['state'][],
): Promise<string> {
  const { uid, ref } = await podUID(engine, b);
  const name = str(b, 'container');
  const all = await sim.runtime.listContainers({
    label_selector: { [POD_UID_LABEL]: uid, [CONTAINER_NAME_LABEL]: name },
  });
  const live = all.filter((c) => states.includes(c.state)).sort(newest);
  if (live[0]) return live[0].id;
  if (all.length === 0)
    throw new StatusError(status(404, 'NotFound', `container "${name}" of pod "${ref}" not found`));
  throw new StatusError(status(409, 'Conflict', `container "${name}" of pod "${ref}" is not running`));
}

async function sandboxID(sim: SimControl, engine: Engine, b: Body): Promise<string> {
  const { uid, ref } = await podUID(engine, b);
  const all: PodSandbox[] = await sim.runtime.listPodSandbox({ label_selector: { [POD_UID_LABEL]: uid } });
  const ready = all.filter((s) => s.state === 'SANDBOX_READY').sort(newest);
  if (ready[0]) return ready[0].id;
  if (all.length === 0) throw new StatusError(status(404, 'NotFound', `pod "${ref}" has no sandbox`));
  throw new StatusError(status(409, 'Conflict', `pod "${ref}" has no ready sandbox`));
}

/** A fault-layer refusal (unknown method, image not in the catalogue, container no longer running). */
function refused(e: unknown, field?: string): never {
  if (e instanceof StatusError || e instanceof CriError) throw e;
  const message = e instanceof Error ? e.message : String(e);
  throw field ? badField(field, message) : new StatusError(status(409, 'Conflict', message));
}

async function attempt(fn: () => Answer, field?: string): Promise<string> {
  try {
    return await fn();
  } catch (e) {
    refused(e, field);
  }
}

/**
 * Validates and applies one fault, records its `sim.fault` event, and returns the fault layer's
 * description. Throws a StatusError (400 bad field or kind, 404 unknown pod/container, 409 not running)
 * or the CriError of a failed CRI list.
 */
export async function applyFault(sim: SimControl, engine: Engine, body: unknown): Promise<string> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new StatusError(badRequest('the body must be a JSON object with a "kind"'));
  }
  const b = body as Body;
  const kind = b.kind;
  if (typeof kind !== 'string' || !(FAULT_KINDS as readonly string[]).includes(kind)) {
    throw badField('kind', `must be one of ${FAULT_KINDS.join(', ')}`);
  }
  const f = sim.runtime.faults;
  let detail: string;
  const extra: { outageMs?: number; cleared?: string } = {};
  switch (kind as FaultKind) {
    case 'containerExit': {
      const code = num(b, 'exitCode', 0, 255, true);
      const id = await containerID(sim, engine, b, ['CONTAINER_RUNNING', 'CONTAINER_UNKNOWN']);
      detail = await attempt(() => f.exitContainer(id, code));
      break;
    }
    case 'containerUnknown': {
      const id = await containerID(sim, engine, b, ['CONTAINER_RUNNING']);
      detail = await attempt(() => f.unknownContainer(id));
      break;
    }
    case 'sandboxDie': {
      const id = await sandboxID(sim, engine, b);
      detail = await attempt(() => f.killSandbox(id));
      break;
    }
    case 'outage':
      extra.outageMs = num(b, 'seconds', 0.001, 3600) * 1000;
      detail = await f.outage(extra.outageMs);
      break;
    case 'failNext': {
      const method = str(b, 'method');
      const n = num(b, 'count', 0, 1000, true);
      const code = grpcCode(b);
      detail = await attempt(() => f.failNext(method, n, code), 'method');
      break;
    }
    case 'imageMissing': {
      const image = str(b, 'image');
      detail = await attempt(() => f.imageMissing(image), 'image');
      break;
    }
    case 'imageRestore': {
      const image = str(b, 'image');
      detail = await attempt(() => f.restoreImage(image), 'image');
      break;
    }
    case 'slowPull': {
      const image = str(b, 'image');
      const ms = num(b, 'seconds', 0, 3600) * 1000;
      detail = await attempt(() => f.slowPull(image, ms), 'image');
      break;
    }
    case 'latency':
      detail = await f.latency(num(b, 'ms', 0, 60_000, true));
      break;
    case 'clear':
      // with `fault` (and `target`, as GET /api/v1/sim/faults lists them) one fault, else all of them
      if (b.fault === undefined) {
        detail = await f.clear();
        extra.cleared = 'all';
      } else {
        const one = str(b, 'fault');
        if (!(LASTING as readonly string[]).includes(one))
          throw badField('fault', `must be one of ${LASTING.join(', ')}`);
        const target = b.target === undefined ? undefined : str(b, 'target');
        detail = await attempt(() => f.clearOne(one, target));
        extra.cleared = one;
      }
      break;
  }
  sim.record({ type: 'sim.fault', fault: kind, detail, ...extra });
  return detail;
}
