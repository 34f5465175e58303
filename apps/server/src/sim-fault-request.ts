/**
 * Reading a fault request of `POST /api/v1/sim/faults` (sim-control.ts applyFault): its fields, checked (a 400
 * naming the field), the runtime ids of the pod and container it names (found through the CRI by the
 * kubelet's labels, the newest live instance), and the fault layer's refusals turned into HTTP statuses.
 */
import { type Container, CriError, codeName, type PodSandbox } from '@syncscope/core/cri';
import type { Engine } from './engine.ts';
import type { Answer, SimControl } from './sim-control-types.ts';
import { badRequest, notFound, StatusError, status } from './status.ts';

const POD_UID_LABEL = 'io.kubernetes.pod.uid';
const CONTAINER_NAME_LABEL = 'io.kubernetes.container.name';

export type Body = Record<string, unknown>;

/** A 400 naming the field, as for every bad input of this API. */
export function badField(field: string, message: string): StatusError {
  return new StatusError(
    badRequest(`invalid value for ${field}: ${message}`, [{ field, reason: 'FieldValueInvalid', message }]),
  );
}

export function str(b: Body, field: string): string {
  const v = b[field];
  if (typeof v !== 'string' || v === '') throw badField(field, 'must be a non-empty string');
  return v;
}

export function num(b: Body, field: string, min: number, max: number, integer = false): number {
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
export function grpcCode(b: Body): number | undefined {
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
export async function containerID(
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

export async function sandboxID(sim: SimControl, engine: Engine, b: Body): Promise<string> {
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

export async function attempt(fn: () => Answer, field?: string): Promise<string> {
  try {
    return await fn();
  } catch (e) {
    refused(e, field);
  }
}
