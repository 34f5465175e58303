/**
 * Writes the TypeScript types of runtime-v1.proto with @grpc/proto-loader's own generator
 * (proto-loader-gen-types), its flags derived from LOADER_OPTIONS, so the types describe exactly the objects
 * loadCriServices decodes and encodes. types.ts names its messages from the result in ./generated/.
 *
 * Callers: `pnpm gen:cri` (this file run as a script; replaces ./generated/) and the drift test
 * (gen-types.test.ts; writes into a temp dir and compares). Runs the generator as a child process and waits
 * for it; rejects with the generator's stderr if it fails.
 */
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { LOADER_OPTIONS, PROTO_PATH } from './proto.ts';

/** The committed output, imported by types.ts. */
export const GENERATED_DIR = fileURLToPath(new URL('./generated', import.meta.url));

/**
 * The generator runs from the repository root with the proto's path relative to it: the path is written into
 * every file's header, so it must not depend on where the clone lives.
 */
const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** proto-loader-gen-types flags equal to LOADER_OPTIONS; an option it cannot express throws. */
export function generatorFlags(): string[] {
  const flags: string[] = [];
  for (const [key, value] of Object.entries(LOADER_OPTIONS)) {
    if (value === undefined || value === false) continue;
    switch (key) {
      case 'keepCase':
      case 'defaults':
      case 'arrays':
      case 'objects':
      case 'oneofs':
      case 'json':
        flags.push(`--${key}`);
        break;
      case 'longs':
      case 'enums':
      case 'bytes':
        // The loader takes the constructor (String, Number, Array); the generator its name.
        flags.push(`--${key}=${(value as { name: string }).name}`);
        break;
      default:
        throw new Error(`LOADER_OPTIONS.${key} has no proto-loader-gen-types flag`);
    }
  }
  return [...flags, '--grpcLib=@grpc/grpc-js'];
}

/** Generates the types of runtime-v1.proto into outDir (created if missing; other files in it are kept). */
export async function generateCriTypes(outDir: string): Promise<void> {
  const bin = createRequire(import.meta.url).resolve(
    '@grpc/proto-loader/build/bin/proto-loader-gen-types.js',
  );
  const proto = path.relative(REPO_ROOT, PROTO_PATH).split(path.sep).join('/');
  await promisify(execFile)(process.execPath, [bin, ...generatorFlags(), `--outDir=${outDir}`, proto], {
    cwd: REPO_ROOT,
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await rm(GENERATED_DIR, { recursive: true, force: true });
  await generateCriTypes(GENERATED_DIR);
  console.log(`wrote ${path.relative(process.cwd(), GENERATED_DIR)}`);
}
