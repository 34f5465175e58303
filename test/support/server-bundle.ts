/**
 * The server's own entry (apps/server/src/main.ts) and the simulated node's (sim-node/main.ts) as two plain
 * JavaScript bundles, so that a test which starts the server process many times does not load some 1,500
 * modules through the TypeScript loader each time: a server that refuses its flags takes 0.6 s of CPU instead
 * of 5 s, one that starts about 1.5 s instead of 6 s, and its node 0.5 s instead of 3 s. The same source runs,
 * with the same flags, sockets, gRPC and signals: only how it is loaded differs.
 *
 * Every bundled file keeps its own `import.meta.url`, `__dirname` and `__filename` (written in as the source
 * file's), so whatever it finds beside itself (the CRI proto, the web app, the examples, the worker threads'
 * sources) it finds where it does when run from source. One exception: the link that spawns the node
 * (sim-node/link.ts) keeps the bundle's, so the node it spawns is the bundled one, started without a loader:
 * the entry it names beside itself, `main.ts`, is there a symbolic link to `sim-node/main.mjs` (Node runs the
 * file a link points to, by its own name).
 *
 * The bundles live in node_modules/.cache/syncscope-e2e/<hash>/, <hash> taken over the path and bytes of every
 * file the build read (esbuild's metafile) and this file; each test file's first use hashes them again
 * (~0.1 s) and builds anew when any changed. A build goes to a directory of its own and is renamed into place,
 * so two test runs side by side never see half a bundle.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CACHE = join(ROOT, 'node_modules/.cache/syncscope-e2e');
const SRC = 'apps/server/src';
const ENTRIES = [`${SRC}/main.ts`, `${SRC}/sim-node/main.ts`];
const LINK = join(ROOT, SRC, 'sim-node/link.ts');
const HOUR_MS = 60 * 60 * 1000;

/** sha-256 over this file and each input's path and bytes; undefined when one cannot be read. */
function hashOf(inputs: string[]): string | undefined {
  const h = createHash('sha256').update(readFileSync(fileURLToPath(import.meta.url)));
  try {
    for (const f of [...inputs].sort())
      h.update(`${f}\0`)
        .update(readFileSync(join(ROOT, f)))
        .update('\0');
  } catch {
    return undefined;
  }
  return h.digest('hex').slice(0, 16);
}

/** The current bundle directory when every file it was built from is unchanged. */
function current(): string | undefined {
  try {
    const id = readFileSync(join(CACHE, 'current'), 'utf8').trim();
    const meta = JSON.parse(readFileSync(join(CACHE, id, 'meta.json'), 'utf8')) as { inputs: object };
    if (hashOf(Object.keys(meta.inputs)) === id) return join(CACHE, id);
  } catch {
    // none yet, or a damaged one: build
  }
  return undefined;
}

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

async function buildBundle(): Promise<string> {
  await mkdir(CACHE, { recursive: true });
  const tmp = join(CACHE, `.build-${process.pid}-${Date.now()}`);
  try {
    const r = await build({
      absWorkingDir: ROOT,
      entryPoints: ENTRIES,
      outbase: SRC,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outdir: tmp,
      outExtension: { '.js': '.mjs' },
      metafile: true,
      logLevel: 'error',
      // dependencies written as CommonJS call require; an ES module has none of its own
      banner: {
        js: "import { createRequire as __syncscopeRequire } from 'node:module'; const require = __syncscopeRequire(import.meta.url);",
      },
      plugins: [ownLocation],
    });
    const id = hashOf(Object.keys(r.metafile.inputs));
    if (!id) throw new Error('a file the server bundle read changed while it was built');
    await writeFile(join(tmp, 'meta.json'), JSON.stringify(r.metafile));
    await symlink('sim-node/main.mjs', join(tmp, 'main.ts'));
    const dir = join(CACHE, id);
    if (existsSync(dir)) return dir; // another run built the same
    await rename(tmp, dir).catch(async (e: NodeJS.ErrnoException) => {
      if (!existsSync(dir)) throw e;
    });
    return dir;
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

let ready: Promise<string> | undefined;

/** The directory of an up-to-date bundle (main.mjs, sim-node/main.mjs), built on the first call when needed. */
function serverBundle(): Promise<string> {
  ready ??= (async () => {
    const dir = current() ?? (await buildBundle());
    await writeFile(join(CACHE, `.current-${process.pid}`), relative(CACHE, dir));
    await rename(join(CACHE, `.current-${process.pid}`), join(CACHE, 'current'));
    await prune(dir);
    return dir;
  })();
  return ready;
}

/** Removes bundles other than `keep` once an hour old (a node started from one may still run its idle wait). */
async function prune(keep: string): Promise<void> {
  for (const d of await readdir(CACHE)) {
    const path = join(CACHE, d);
    if (path === keep || d === 'current') continue;
    const old = await stat(path).then(
      (s) => Date.now() - s.mtimeMs > HOUR_MS,
      () => false,
    );
    if (old) await rm(path, { recursive: true, force: true });
  }
}

/** How spawnServer (server-process.ts) starts the server: from source through tsx, or from the bundle. */
let entry = ['--import', 'tsx', `${SRC}/main.ts`];

/** The node arguments before the server's own: the loader and main.ts, or the bundle once useServerBundle ran. */
export function serverEntry(): string[] {
  return entry;
}

/** Makes every server this test file spawns from now on (and the node each spawns) run from the bundle. */
export async function useServerBundle(): Promise<void> {
  entry = [join(await serverBundle(), 'main.mjs')];
}
