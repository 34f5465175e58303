/**
 * The shared context every route plugin reads through `app.syncscope`: the engine, its trace and clock, and
 * the token check. Also the API-wide behaviour: every body is read as text (YAML or JSON, parsed by the
 * handler) up to BODY_LIMIT_BYTES, every error leaves as a v1 Status (client mistakes are logged at info
 * without a stack, the server's own at error with one), and every request passes access.ts: the Host check,
 * then the access its matched route declares (`config: { access }`), then the single-valued query check.
 */
import type { PassiveClock } from '@syncscope/core/clock';
import { CriError, GrpcCode } from '@syncscope/core/cri';
import type { TraceRecorder } from '@syncscope/core/events/recorder';
import type { TraceEvent } from '@syncscope/core/trace';
import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import accessPlugin, { offeredTokens, tokenEquals, unauthorized } from './access.ts';
import type { Engine } from './engine.ts';
import type { HostPolicy } from './hosts.ts';
import { badParam, REASON_BY_CODE, StatusError, sendStatus, status } from './status.ts';

export {
  originAllowed,
  tokenEquals,
  WS_BEARER_PROTOCOL_PREFIX,
} from './access.ts';
export { isLoopbackAddress } from './hosts.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;

type TraceFilter = (ev: TraceEvent) => boolean;

/**
 * The trace as the routes read it: a TraceRecorder (its ring is all it holds) or a JournaledTrace (the ring
 * in front of the on-disk journal, ../lifecycle-trace.ts). Every method answers events with seq > since,
 * oldest first, optionally filtered.
 */
export interface TraceSource extends Pick<TraceRecorder, 'subscribe' | 'next' | 'oldest'> {
  /** What memory holds, at once, at most `limit`: it may begin later than the history (see ringCovers). */
  since(since?: number, filter?: TraceFilter, limit?: number): TraceEvent[];
  /** True when since(after) is the whole answer: nothing after `after` is held on disk alone. */
  ringCovers(after: number): boolean;
  /**
   * The whole history, at most `limit`: what is older than memory is read from disk through the thread
   * pool, never blocking the event loop; a source without a disk answers since() at once.
   */
  sinceAsync(since?: number, filter?: TraceFilter, limit?: number): Promise<TraceEvent[]>;
  /** The whole history streamed a page at a time, until the newest event (the caller stops it). */
  history(since?: number, filter?: TraceFilter): AsyncIterable<TraceEvent>;
}

interface SyncscopeContext {
  engine: Engine;
  trace: TraceSource;
  clock: PassiveClock;
  /**
   * Throws a 401 StatusError unless the request carries the token (always passes without one). The access
   * hook already applies it to every route but the public ones; a route may call it as well.
   */
  requireToken(req: FastifyRequest): void;
}

declare module 'fastify' {
  interface FastifyInstance {
    syncscope: SyncscopeContext;
  }
}

export interface ContextOptions extends HostPolicy {
  engine: Engine;
  trace: TraceSource;
  clock: PassiveClock;
  /** When set, every route but the public ones (health, the web app) needs it. Required beyond loopback. */
  token?: string;
}

/** Every query parameter of this API is single-valued; one given twice is refused rather than guessed at. */
function repeatedParam(query: unknown): ReturnType<typeof status> | undefined {
  if (typeof query !== 'object' || query === null) return undefined;
  for (const [k, v] of Object.entries(query)) {
    if (Array.isArray(v)) return badParam(k, v.join(','), 'may be given only once');
  }
  return undefined;
}

async function context(app: FastifyInstance, opts: ContextOptions): Promise<void> {
  const { engine, trace, clock, token } = opts;
  app.decorate('syncscope', {
    engine,
    trace,
    clock,
    requireToken(req: FastifyRequest) {
      if (!token) return;
      if (!offeredTokens(req).some((t) => tokenEquals(t, token))) throw new StatusError(unauthorized());
    },
  });

  await app.register(accessPlugin, { token, bind: opts.bind, allowedHosts: opts.allowedHosts });
  app.addHook('onRequest', async (req, reply) => {
    // a route whose config says `multiValued` (a pod's exec: one ?command= a word) reads repeats itself
    const refused = (req.routeOptions.config as { multiValued?: boolean }).multiValued
      ? undefined
      : repeatedParam(req.query);
    if (refused) return sendStatus(reply, refused);
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES }, (_req, body, done) => {
    done(null, body);
  });

  app.setErrorHandler((err: FastifyError | StatusError | CriError, req, reply) => {
    if (err instanceof StatusError) return sendStatus(reply, err.status);
    if (err instanceof CriError) {
      // the runtime failed us, not the server: say so, without a stack
      const code = err.code === GrpcCode.UNAVAILABLE || err.code === GrpcCode.DEADLINE_EXCEEDED ? 503 : 500;
      req.log.warn({ grpcCode: err.code }, err.message);
      return sendStatus(
        reply,
        status(code, REASON_BY_CODE[code] ?? 'InternalError', `container runtime: ${err.message}`),
      );
    }
    return sendStatus(reply, errorStatus(err, req));
  });
}

/**
 * The Status for an error Fastify (or a plugin) raised: its own status code, or 500. Client mistakes are
 * logged at info with their code and message only; a 5xx at error with the stack.
 */
export function errorStatus(err: FastifyError, req: FastifyRequest): ReturnType<typeof status> {
  const code = err.statusCode && err.statusCode >= 400 && err.statusCode < 600 ? err.statusCode : 500;
  if (code >= 500) req.log.error({ err }, 'request failed');
  else req.log.info({ code: err.code, statusCode: code }, err.message);
  const message =
    code === 413
      ? `Request entity too large: limit is ${BODY_LIMIT_BYTES}`
      : code === 414
        ? 'Request-URI Too Long: a path segment is longer than the server takes'
        : code === 400 && err.code === 'FST_ERR_BAD_URL'
          ? `the request path is not valid: ${err.message}`
          : code >= 500
            ? 'Internal error'
            : err.message;
  return status(code, REASON_BY_CODE[code] ?? 'BadRequest', message);
}

export default fp(context, { name: 'syncscope-context' });
