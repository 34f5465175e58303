/**
 * The built web app (apps/web/dist) at `/`, with the single-page fallback: a browser's navigation (a GET that
 * accepts text/html) to a path that names no file gets index.html, so a stray link still opens the app (its
 * own routes are in the hash). Anything else that names nothing gets a 404 Status: every API client, and any
 * spelling of the paths where Kubernetes clients look (/api, /apis, /openapi, /version, whatever the case or
 * doubled slashes), even from a browser. When the app has not been built, a navigation says how to build it.
 *
 * The web app's files are public (the page must load to ask for the token); so is the fallback, which only
 * ever answers index.html, the build hint or a 404 Status.
 *
 * Caching and compression: the build names every file under assets/ by its content's hash, so those are
 * cached for a year and never revalidated; everything else (index.html) is revalidated on every load, so a
 * new build is picked up at once. The build writes a gzip and a brotli copy beside each text file
 * (apps/web/vite.config.ts); a client that accepts one gets it, with no compression work per request, and every
 * file says it varies by Accept-Encoding, so a proxy never hands brotli bytes to a client that did not ask.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { sendStatus, status } from '../status.ts';

interface WebOptions {
  /** Directory holding index.html; absent or missing → the build hint. */
  webRoot?: string;
}

/** Cache-Control of the hashed build files and of everything else the web app serves. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
export const REVALIDATE = 'no-cache';

/** Files under assets/ carry their content's hash in their names. */
function isHashedAsset(path: string): boolean {
  return /[\\/]assets[\\/][^\\/]+$/.test(path);
}

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Syncscope</title>
<h1>Syncscope</h1><p>The web app has not been built. Run <code>pnpm build</code> (or <code>pnpm start</code>,
which builds it first) and reload. The API is up: <a href="/api/v1/pods">/api/v1/pods</a>.</p>`;

/** Paths a Kubernetes client asks for: never answered with the page, whatever follows the prefix. */
const API_PREFIXES = ['/api', '/apis', '/openapi', '/version'];

function isApiPath(path: string): boolean {
  const p = path.replace(/\/{2,}/g, '/').toLowerCase();
  return API_PREFIXES.some((prefix) => p === prefix || p.startsWith(`${prefix}/`));
}

/** A browser opening a page: a GET or HEAD that accepts HTML (API clients ask for JSON, YAML or protobuf). */
function isNavigation(method: string, accept: string | undefined): boolean {
  return (method === 'GET' || method === 'HEAD') && /\btext\/html\b/.test(accept ?? '');
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
    await app.register(fastifyStatic, {
      root,
      wildcard: true,
      index: ['index.html'],
      preCompressed: true,
      cacheControl: false,
      setHeaders: (res, path) => {
        res.setHeader('cache-control', isHashedAsset(path) ? IMMUTABLE : REVALIDATE);
        // the same URL answers brotli, gzip or plain bytes by Accept-Encoding: a shared cache must key on it
        res.setHeader('vary', 'accept-encoding');
      },
    });
    addingStatic = false;
  }
  app.setNotFoundHandler(async (req, reply) => {
    const path = req.url.split('?')[0] ?? '/';
    if (isApiPath(path) || !isNavigation(req.method, req.headers.accept)) {
      return sendStatus(
        reply,
        status(404, 'NotFound', 'the server could not find the requested resource', {}),
      );
    }
    if (built) return reply.type('text/html').header('cache-control', REVALIDATE).sendFile('index.html');
    return reply.type('text/html').send(NOT_BUILT);
  });
}

export default fp(web, { name: 'syncscope-web' });
