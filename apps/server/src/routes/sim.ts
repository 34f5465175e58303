/**
 * The simulated node's controls:
 *   GET  /api/v1/sim          { simulated, speed }: whether the runtime is our simulator, and the clock speed.
 *   GET  /api/v1/sim/faults   { items: ActiveFault[] }: the lasting faults in effect (outage, failNext, latency,
 *                             missing images, slow pulls), each with the kind and target that clear it.
 *   POST /api/v1/sim/faults   { kind, ... } → { ok: true, detail }: inject a fault (sim-control.ts lists the
 *                             kinds and their fields); recorded as a `sim.fault` trace event. `{ kind: "clear" }`
 *                             ends them all; `{ kind: "clear", fault, target? }` ends one (409 if not in effect).
 *   PUT  /api/v1/sim/speed    { speed: 1..100 } → { speed }: how much faster than wall time the node runs.
 * On a real runtime the POST and PUT answer 404; so does PUT speed when the server does not own its clock.
 */
import { CriError, GrpcCode } from '@syncscope/core/cri';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { READ_ROUTE, WRITE_ROUTE } from '../access.ts';
import { applyFault, type SimControl } from '../sim-control.ts';
import { badRequest, sendStatus, status } from '../status.ts';

interface SimRoutesOptions {
  sim?: SimControl;
}

const MIN_SPEED = 1;
const MAX_SPEED = 100;

const notSimulated = () =>
  status(
    404,
    'NotFound',
    'the container runtime is not the simulated node: faults and speed exist only there',
  );

function parseJson(body: unknown): unknown {
  if (typeof body !== 'string' || body.trim() === '') return undefined;
  try {
    return JSON.parse(body);
  } catch (e) {
    return new SyntaxError((e as Error).message);
  }
}

function criFailure(reply: FastifyReply, e: CriError) {
  const code = e.code === GrpcCode.UNAVAILABLE ? 503 : 500;
  return sendStatus(
    reply,
    status(code, code === 503 ? 'ServiceUnavailable' : 'InternalError', `container runtime: ${e.message}`),
  );
}

async function simRoutes(app: FastifyInstance, opts: SimRoutesOptions): Promise<void> {
  const { engine } = app.syncscope;
  const sim = opts.sim;

  app.get('/api/v1/sim', READ_ROUTE, async () => ({
    simulated: sim !== undefined,
    speed: sim?.clock?.speed ?? 1,
  }));

  app.get('/api/v1/sim/faults', READ_ROUTE, async (_req, reply) => {
    if (!sim) return sendStatus(reply, notSimulated());
    try {
      return { items: await sim.runtime.faults.active() };
    } catch (e) {
      if (e instanceof CriError) return criFailure(reply, e);
      throw e;
    }
  });

  app.post<{ Body: string }>('/api/v1/sim/faults', WRITE_ROUTE, async (req, reply) => {
    app.syncscope.requireToken(req);
    if (!sim) return sendStatus(reply, notSimulated());
    const body = parseJson(req.body);
    if (body instanceof SyntaxError)
      return sendStatus(reply, badRequest(`the body is not JSON: ${body.message}`));
    try {
      const detail = await applyFault(sim, engine, body);
      return { ok: true, detail };
    } catch (e) {
      if (e instanceof CriError) return criFailure(reply, e);
      throw e;
    }
  });

  app.put<{ Body: string }>('/api/v1/sim/speed', WRITE_ROUTE, async (req, reply) => {
    app.syncscope.requireToken(req);
    if (!sim?.clock) return sendStatus(reply, notSimulated());
    const body = parseJson(req.body) as { speed?: unknown } | undefined;
    const speed = body instanceof SyntaxError ? undefined : body?.speed;
    if (typeof speed !== 'number' || !Number.isFinite(speed) || speed < MIN_SPEED || speed > MAX_SPEED) {
      const message = `must be a number in [${MIN_SPEED}, ${MAX_SPEED}]`;
      return sendStatus(
        reply,
        badRequest(`invalid value for speed: ${message}`, [
          { field: 'speed', reason: 'FieldValueInvalid', message },
        ]),
      );
    }
    try {
      await sim.clock.setSpeed(speed);
    } catch (e) {
      if (e instanceof CriError) return criFailure(reply, e);
      throw e;
    }
    return { speed: sim.clock.speed };
  });
}

export default fp(simRoutes, { name: 'syncscope-sim', dependencies: ['syncscope-context'] });
