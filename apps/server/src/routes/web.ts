/**
 * The built web app (apps/web/dist) at `/`, with the single-page fallback: any GET outside /api that names no
 * file gets index.html, so a reload on /pods/default/web works. Unknown paths under /api, /apis, /openapi and
 * /version (where API clients look) get a 404 Status. When the
 * app has not been built, `/` says how to build it instead.
 *
 * The web app's files are public (the page must load to ask for the token); so is the fallback, which only
 * ever answers index.html, the build hint or a 404 Status.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { sendStatus, status } from '../status.ts';

export interface WebOptions {
  /** Directory holding index.html; absent or missing → the build hint. */
  webRoot?: string;
}

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Syncscope</title>
<h1>Syncscope</h1><p>The web app has not been built. Run <code>pnpm build</code> (or <code>pnpm start</code>,
which builds it first) and reload. The API is up: <a href="/api/v1/pods">/api/v1/pods</a>.</p>`;

/** Paths a Kubernetes client asks for: never answered with the page, whatever follows the prefix. */
const API_PREFIXES = ['/api', '/apis', '/openapi', '/version'];

export function isApiPath(path: string): boolean {
  return API_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`));
}

async function web(app: FastifyInstance, opts: WebOptions): Promise<void> {
  const root = opts.webRoot;
  const built = root !== undefined && existsSync(join(root, 'index.html'));
  if (built) {
    // @fastify/static takes no route options: its routes are declared public as they are added
    let addingStatic = true;
    app.addHook('onRoute', (r) => {
      if (addingStatic) r.config = { ...r.config, access: 'public' };
    });
    await app.register(fastifyStatic, { root, wildcard: true, index: ['index.html'] });
    addingStatic = false;
  }
  app.setNotFoundHandler(async (req, reply) => {
    const path = req.url.split('?')[0] ?? '/';
    if (isApiPath(path) || (req.method !== 'GET' && req.method !== 'HEAD')) {
      return sendStatus(reply, status(404, 'NotFound', 'the server could not find the requested resource'));
    }
    if (built) return reply.type('text/html').sendFile('index.html');
    return reply.type('text/html').send(NOT_BUILT);
  });
}

export default fp(web, { name: 'syncscope-web' });
