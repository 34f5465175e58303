/**
 * The server's own entry (apps/server/src/main.ts), the simulated node's (sim-node/main.ts) and the server as a
 * library (app.ts, for tests that run it in their own process: ./server-lib.ts) as plain JavaScript bundles, so
 * that a test which starts the server process many times does not load some 1,500 modules through the
 * TypeScript loader each time: a server that refuses its flags takes 0.6 s of CPU instead
 * of 5 s, one that starts about 1.5 s instead of 6 s, and its node 0.5 s instead of 3 s. The same source runs,
 * with the same flags, sockets, gRPC and signals: only how it is loaded differs. The integration, end-to-end
 * and browser projects start every server process and every simulated node from this bundle, the nodes of
 * their in-process servers included (./bundle-setup.ts).
 *
 * Every bundled file keeps its own `import.meta.url`, `__dirname` and `__filename` (written in as the source
 * file's), so whatever it finds beside itself (the CRI proto, the web app, the examples, the worker threads'
 * sources) it finds where it does when run from source. One exception: the link that spawns the node
 * (sim-node/link.ts) keeps the bundle's, so the node it spawns is the bundled one, started without a loader:
 * the entry it names beside itself, `main.ts`, is there a symbolic link to `sim-node/main.mjs` (Node runs the
 * file a link points to, by its own name).
 *
 * The bundle is built, cached and checked by scripts/bundled.mjs (name `server`), its hash covering this file
 * too: each run's global setup hashes the inputs again (~0.1 s) and builds anew when any changed.
 */
import { readFile, symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import { bundled } from '../../scripts/bundled.mjs';
import { SERVER_BUNDLE_ENV } from './server-lib.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SRC = 'apps/server/src';
const ENTRIES = [`${SRC}/main.ts`, `${SRC}/sim-node/main.ts`, `${SRC}/app.ts`];
const LINK = join(ROOT, SRC, 'sim-node/link.ts');
const SELF = fileURLToPath(import.meta.url);

/** Writes each file's own location into it, but for the link that spawns the node. */
const ownLocation: Plugin = {
  name: 'own-location',
  setup(b) {
    b.onLoad({ filter: /\.[cm]?[jt]s$/ }, async ({ path }) => {
      const src = await readFile(path, 'utf8');
      const meta = path !== LINK && src.includes('import.meta.url');
      const cjs = /\b__(dirname|filename)\b/.test(src);
      if (!meta && !cjs) return undefined;
      let contents = meta ? src.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href)) : src;
      if (cjs)
        contents = `var __filename = ${JSON.stringify(path)}, __dirname = ${JSON.stringify(dirname(path))};\n${contents}`;
      return { contents, loader: /\.[cm]?ts$/.test(path) ? 'ts' : 'js' };
    });
  },
};

/**
 * The directory of an up-to-date bundle `name` of `entries` (paths from the root) built as the server's is: every
 * file keeps its own location, the packages named `external` are loaded from node_modules. `salt`: whatever else
 * shapes the output; `finish(dir)` runs on a new build. The benchmark smoke's children run from one too.
 */
export async function ownLocationBundle(
  name: string,
  entries: string[],
  opts: {
    salt?: Buffer;
    outbase?: string;
    external?: string[];
    /** the code the entries share in chunks of its own, loaded once by whichever entry runs */
    splitting?: boolean;
    finish?: (dir: string) => Promise<void>;
  } = {},
): Promise<string> {
  const self = await readFile(SELF);
  return bundled(name, entries, {
    salt: opts.salt ? Buffer.concat([self, opts.salt]) : self,
    esbuild: {
      ...(opts.outbase ? { outbase: opts.outbase } : {}),
      ...(opts.external ? { external: opts.external } : {}),
      ...(opts.splitting ? { splitting: true } : {}),
      // dependencies written as CommonJS call require; an ES module has none of its own
      banner: {
        js: "import { createRequire as __syncscopeRequire } from 'node:module'; const require = __syncscopeRequire(import.meta.url);",
      },
      plugins: [ownLocation],
    },
    ...(opts.finish ? { finish: opts.finish } : {}),
  });
}

let ready: Promise<string> | undefined;

/** The directory of an up-to-date bundle (main.mjs, sim-node/main.mjs), built on the first call when needed. */
export function serverBundle(): Promise<string> {
  ready ??= ownLocationBundle('server', ENTRIES, {
    outbase: SRC,
    finish: (dir) => symlink('sim-node/main.mjs', join(dir, 'main.ts')),
  });
  return ready;
}

/**
 * How spawnServer (server-process.ts) starts the server: from the run's bundle when the global setup named one,
 * else from source through tsx until useServerBundle.
 */
let entry = process.env[SERVER_BUNDLE_ENV]
  ? [join(process.env[SERVER_BUNDLE_ENV], 'main.mjs')]
  : ['--import', 'tsx', `${SRC}/main.ts`];

/** The node arguments before the server's own: the loader and main.ts, or the bundle's main.mjs. */
export function serverEntry(): string[] {
  return entry;
}

/**
 * Makes every server this test file spawns from now on (and the node each spawns) run from the bundle. Under
 * the global setup it keeps the run's bundle: the files of a tier share one process, and a bundle built anew
 * halfway through (from sources changed since) would pair later servers with the run's simulated node.
 */
export async function useServerBundle(): Promise<void> {
  if (process.env[SERVER_BUNDLE_ENV]) return;
  entry = [join(await serverBundle(), 'main.mjs')];
}
