/**
 * The shared context every route plugin reads through `app.syncscope`: the engine, its trace and clock, and
 * the write guard. Also the API-wide behaviour: every body is read as text (YAML or JSON, parsed by the
 * handler) up to BODY_LIMIT_BYTES, and every error leaves as a v1 Status.
 */
import { timingSafeEqual } from 'node:crypto';
import type { PassiveClock } from '@syncscope/core/clock';
import type { TraceRecorder } from '@syncscope/core/events/recorder';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Engine } from './engine.ts';
import { REASON_BY_CODE, StatusError, sendStatus, status } from './status.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;

/** The trace as the routes read it: a TraceRecorder or anything shaped like one. */
export type TraceSource = Pick<TraceRecorder, 'since' | 'subscribe' | 'next' | 'oldest'>;

export interface SyncscopeContext {
  engine: Engine;
  trace: TraceSource;
  clock: PassiveClock;
  /**
   * Throws a 401 StatusError unless the request may change state: always allowed without a token; with one
   * (set when the server listens beyond loopback), `Authorization: Bearer <token>` is required.
   */
  requireToken(req: FastifyRequest): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    syncscope: SyncscopeContext;
  }
}

export interface ContextOptions {
  engine: Engine;
  trace: TraceSource;
  clock: PassiveClock;
  token?: string;
}

function tokenMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(header ?? '');
  if (!m?.[1]) return false;
  const a = Buffer.from(m[1]);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

async function context(app: FastifyInstance, opts: ContextOptions): Promise<void> {
  const { engine, trace, clock, token } = opts;
  app.decorate('syncscope', {
    engine,
    trace,
    clock,
    requireToken(req: FastifyRequest) {
      if (token && !tokenMatches(req.headers.authorization, token)) {
        throw new StatusError(
          status(
            401,
            'Unauthorized',
            'this server listens beyond loopback: send Authorization: Bearer <SYNCSCOPE_TOKEN>',
          ),
        );
      }
    },
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES }, (_req, body, done) => {
    done(null, body);
  });

  app.setErrorHandler((err: FastifyError | StatusError, req, reply) => {
    if (err instanceof StatusError) return sendStatus(reply, err.status);
    const code = err.statusCode && err.statusCode >= 400 ? err.statusCode : 500;
    if (code >= 500) req.log.error({ err }, 'request failed');
    const message =
      code === 413
        ? `Request entity too large: limit is ${BODY_LIMIT_BYTES}`
        : code >= 500
          ? 'Internal error'
          : err.message;
    return sendStatus(reply, status(code, REASON_BY_CODE[code] ?? 'BadRequest', message));
  });
}

export default fp(context, { name: 'syncscope-context' });
