/**
 * The API server's health endpoints (apiserver pkg/server/healthz), each a list of named checks:
 *   GET /livez, /readyz         public: `ok` while every check passes; with `?verbose` the list, one
 *                               `[+]<check> ok` line each and `<livez|readyz> check passed`; `?exclude=<check>`
 *                               (repeatable) skips a check (`[+]<check> excluded: ok`) and warns of a name no
 *                               check has. A failing check makes the answer a 503 with the list, each failure
 *                               `[-]<check> failed: <why>`, and `<name> check failed`.
 *   GET /livez/<check>, /readyz/<check>, /healthz/<check>
 *                               one check: `ok`, or a 503 `internal server error: <why>`; an unknown check a
 *                               404 Status. These need the token, as the apiserver keeps them from the public.
 * /healthz itself is routes/node.ts' (`ok` or `degraded: <why>`).
 *
 * The checks: `ping` (the server answers) for every endpoint; for readiness also `storage` (the disk the
 * trace and pods are kept on takes writes), `runtime` (the kubelet finds its container runtime up: the
 * Node's Ready condition) and `shutdown` (the server is not closing). Where the apiserver answers a failure
 * with 500 and withholds the reason on the public list, this server answers 503 and names it: the page shows
 * why.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { PUBLIC_ROUTE, READ_ROUTE } from '../access.ts';
import { sendStatus, status } from '../status.ts';

/** One named check: undefined while it passes, else why it fails. */
interface HealthChecker {
  name: string;
  check(): string | undefined;
}

interface HealthAnswer {
  code: number;
  body: string;
}

/** The `exclude` values of a query (one or repeated). */
function excludedOf(q: unknown): Set<string> {
  if (q === undefined) return new Set();
  return new Set((Array.isArray(q) ? q : [q]).map(String));
}

/**
 * handleRootHealth: the answer of endpoint `name` (livez, readyz) for `checks`, given whether `?verbose`
 * is present and the checks `?exclude` names. Failure is always verbose.
 */
function rootHealth(
  name: string,
  checks: readonly HealthChecker[],
  verbose: boolean,
  exclude: Set<string>,
): HealthAnswer {
  const left = new Set(exclude);
  let out = '';
  let failed = false;
  for (const c of checks) {
    if (left.has(c.name)) {
      left.delete(c.name);
      out += `[+]${c.name} excluded: ok\n`;
      continue;
    }
    const why = c.check();
    if (why === undefined) out += `[+]${c.name} ok\n`;
    else {
      failed = true;
      out += `[-]${c.name} failed: ${why}\n`;
    }
  }
  if (left.size > 0) {
    const names = [...left].sort().map((n) => JSON.stringify(n));
    out += `warn: some health checks cannot be excluded: no matches for ${names.join(',')}\n`;
  }
  if (failed) return { code: 503, body: `${out}${name} check failed\n` };
  return { code: 200, body: verbose ? `${out}${name} check passed\n` : 'ok' };
}

const TEXT = 'text/plain; charset=utf-8';

/** Public, and `exclude` may be repeated (the repeated-parameter check in context.ts lets it through). */
const PUBLIC_MULTI = { config: { ...PUBLIC_ROUTE.config, multiValued: true } } as const;

function send(reply: FastifyReply, a: HealthAnswer): FastifyReply {
  return reply.code(a.code).header('x-content-type-options', 'nosniff').type(TEXT).send(a.body);
}

async function healthRoutes(app: FastifyInstance): Promise<void> {
  const { engine } = app.syncscope;
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  const ping: HealthChecker = { name: 'ping', check: () => undefined };
  const storage: HealthChecker = { name: 'storage', check: () => engine.storageFailure?.() };
  const runtime: HealthChecker = {
    name: 'runtime',
    check: () => {
      const rt = engine.nodeInfo().runtime;
      if (rt.ready) return undefined;
      return `${rt.endpoint || rt.name || 'container runtime'}: ${rt.errors.join('; ')}`;
    },
  };
  const shutdown: HealthChecker = {
    name: 'shutdown',
    check: () => (closing ? 'process is shutting down' : undefined),
  };
  const endpoints: Record<string, readonly HealthChecker[]> = {
    healthz: [ping],
    livez: [ping],
    readyz: [ping, storage, runtime, shutdown],
  };

  for (const [name, checks] of Object.entries(endpoints)) {
    if (name !== 'healthz') {
      app.get<{ Querystring: Record<string, unknown> }>(`/${name}`, PUBLIC_MULTI, async (req, reply) => {
        const q = req.query;
        return send(reply, rootHealth(name, checks, 'verbose' in q, excludedOf(q.exclude)));
      });
    }
    app.get<{ Params: { check: string } }>(`/${name}/:check`, READ_ROUTE, async (req, reply) => {
      const c = checks.find((x) => x.name === req.params.check);
      if (!c)
        return sendStatus(
          reply,
          status(404, 'NotFound', 'the server could not find the requested resource', {}),
        );
      const why = c.check();
      return send(
        reply,
        why === undefined
          ? { code: 200, body: 'ok' }
          : { code: 503, body: `internal server error: ${why}\n` },
      );
    });
  }
}

export default fp(healthRoutes, { name: 'syncscope-kube-healthz', dependencies: ['syncscope-context'] });
