/**
 * Runs one of the project's command-line tools as a plain JavaScript bundle (esbuild), so it starts in Node's own
 * ~0.1 s instead of the ~0.4 s a TypeScript loader adds to every start, and its worker threads need no loader.
 * The same code runs, with the same output: only how it is loaded differs.
 *
 *   node scripts/bundled.mjs import-log FILE [--year N] [--tz ZONE]     (what `pnpm -s import-log` runs)
 *
 * bundled() is also how the tests get the server and the simulated node as bundles (test/support/server-bundle.ts):
 * one cache, one way to tell a stale bundle.
 *
 * A bundle lives in node_modules/.cache/syncscope-cli/<name>-<hash>/, where <hash> is taken over the path and
 * bytes of every source file the last build read (esbuild's metafile), this file and the caller's `salt`. Each
 * start hashes those files again (about 30 files for a tool, ~1 ms; the server's 1,500, ~0.1 s) and builds anew
 * when any changed, so an edit, a checkout or a pull is never run stale. A build goes to a directory of its own
 * and is renamed into place, then named in <name>.current (written to a temporary file and renamed), so two
 * starts at once never see half a bundle. Bundles not current are deleted once an hour old (a process started
 * from one may still be loading its worker, or a simulated node started from one still running its idle wait).
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SELF = readFileSync(fileURLToPath(import.meta.url));

/** each tool: its entry first, then the entries of the worker threads it starts (loaded beside it by name) */
export const TOOLS = {
  'import-log': ['apps/server/src/import-log.ts', 'apps/server/src/import-log-encoder.ts'],
  // bench P6's floor, a bare read-and-split pass, started the same way as import-log
  'split-lines': ['bench/lib/split-lines.ts'],
};

const HOUR_MS = 60 * 60 * 1000;

/** sha-256 over this file, the salt and each input's path and bytes, in path order; undefined when one cannot be read */
function hashOf(root, inputs, salt) {
  const h = createHash('sha256').update(SELF).update(salt);
  try {
    for (const f of [...inputs].sort())
      h.update(`${f}\0`)
        .update(readFileSync(join(root, f)))
        .update('\0');
  } catch {
    return undefined;
  }
  return h.digest('hex').slice(0, 16);
}

/** the current bundle's id when every source it was built from is unchanged */
function current(cache, name, root, salt) {
  try {
    const id = readFileSync(join(cache, `${name}.current`), 'utf8').trim();
    const meta = JSON.parse(readFileSync(join(cache, id, 'meta.json'), 'utf8'));
    if (`${name}-${hashOf(root, Object.keys(meta.inputs), salt)}` === id) return id;
  } catch {
    // no bundle yet, or a damaged one: build
  }
  return undefined;
}

async function build(cache, name, entries, { root, salt, esbuild: options, finish }) {
  const { build: esbuild } = await import('esbuild');
  mkdirSync(cache, { recursive: true });
  const tmp = join(cache, `.build-${name}-${process.pid}-${Date.now()}`);
  try {
    const r = await esbuild({
      absWorkingDir: root,
      entryPoints: entries,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outdir: tmp,
      outExtension: { '.js': '.mjs' },
      metafile: true,
      logLevel: 'error',
      ...options,
    });
    const hash = hashOf(root, Object.keys(r.metafile.inputs), salt);
    if (!hash) throw new Error(`a file the ${name} bundle read changed while it was built`);
    writeFileSync(join(tmp, 'meta.json'), JSON.stringify(r.metafile));
    await finish?.(tmp);
    const id = `${name}-${hash}`;
    try {
      if (!existsSync(join(cache, id))) renameSync(tmp, join(cache, id));
    } catch (e) {
      if (!existsSync(join(cache, id))) throw e; // else another start renamed the same build first
    }
    return id;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** names `id` current, and deletes the others of `name` once an hour old */
function settle(cache, name, id) {
  const pointer = join(cache, `.${name}.current-${process.pid}`);
  writeFileSync(pointer, id);
  renameSync(pointer, join(cache, `${name}.current`));
  for (const d of readdirSync(cache)) {
    if (d === id || !(d.startsWith(`${name}-`) || d.startsWith(`.build-${name}-`))) continue;
    try {
      if (Date.now() - statSync(join(cache, d)).mtimeMs > HOUR_MS)
        rmSync(join(cache, d), { recursive: true });
    } catch {
      // another start pruned it first
    }
  }
}

/**
 * The directory of an up-to-date bundle of `entries` (paths relative to root), built when needed; its files are
 * the entries' base names with `.mjs` (or as `esbuild.outbase` lays them out). `esbuild` adds to the build's
 * options, `salt` to what the hash covers (whatever else shapes the output, such as a plugin's source), and
 * `finish(dir)` runs on a new build before it is renamed into place.
 */
export async function bundled(
  name,
  entries,
  { root = ROOT, cache = join(ROOT, 'node_modules/.cache/syncscope-cli'), salt = '', esbuild, finish } = {},
) {
  const fresh = current(cache, name, root, salt);
  const id = fresh ?? (await build(cache, name, entries, { root, salt, esbuild, finish }));
  if (!fresh) settle(cache, name, id);
  return join(cache, id);
}

/** the file in a bundle directory that an entry became */
export const outFile = (dir, entry) => join(dir, `${basename(entry).replace(/\.[cm]?tsx?$/, '')}.mjs`);

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const name = process.argv[2] ?? '';
  const entries = TOOLS[name];
  if (!entries) {
    process.stderr.write(`usage: node scripts/bundled.mjs ${Object.keys(TOOLS).join('|')} [ARGS...]\n`);
    process.exit(2);
  }
  const dir = await bundled(name, entries);
  // the tool reads its own arguments from process.argv, as when it is started directly
  process.argv.splice(2, 1);
  await import(pathToFileURL(outFile(dir, entries[0])).href);
}
