/**
 * Fault injection on the simulated node, as the HTTP API describes it (`POST /api/v1/sim/faults`): a fault
 * names pods and containers the way a user sees them (namespace, pod name, container name); applyFault finds
 * the runtime ids through the CRI — ListPodSandbox / ListContainers by the kubelet's labels, the newest
 * live instance — and hands them to the SimRuntime's fault layer (packages/core/src/sim/faults.ts).
 *
 * Called from request handlers only; the CRI lists may wait on an injected latency, and fail UNAVAILABLE
 * during an outage (answered 503). The request's fields and the ids it names are read by
 * sim-fault-request.ts.
 */
import type { ActiveFault } from '@syncscope/core';
import type { Engine } from './engine.ts';
import type { SimControl } from './sim-control-types.ts';
import {
  attempt,
  type Body,
  badField,
  containerID,
  grpcCode,
  num,
  sandboxID,
  str,
} from './sim-fault-request.ts';
import { badRequest, StatusError } from './status.ts';

export type { ExecResult, SimControl, SimFaults } from './sim-control-types.ts';

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
