import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GENERATED_DIR, generateCriTypes, generatorFlags } from './gen-types.ts';

// The committed CRI types are exactly what proto-loader-gen-types makes of runtime-v1.proto with the
// run-time loader options: a proto edit, a changed LOADER_OPTIONS or a hand edit under generated/ without
// `pnpm gen:cri` fails here, naming the first file that differs.

let tmp: string | undefined;
afterEach(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
  tmp = undefined;
});

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

/** The first difference between two trees, in words, or undefined when they are byte for byte equal. */
async function firstDifference(committed: string, fresh: string): Promise<string | undefined> {
  const [have, want] = await Promise.all([filesUnder(committed), filesUnder(fresh)]);
  const missing = want.find((f) => !have.includes(f));
  if (missing) return `${missing}: generated but not committed`;
  const extra = have.find((f) => !want.includes(f));
  if (extra) return `${extra}: committed but no longer generated`;
  for (const f of want) {
    const [a, b] = await Promise.all([readFile(path.join(committed, f)), readFile(path.join(fresh, f))]);
    if (!a.equals(b)) return `${f}: differs from the generator's output`;
  }
  return undefined;
}

describe('generated CRI types', () => {
  it('match the generator run on runtime-v1.proto with LOADER_OPTIONS, file for file', async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'syncscope-cri-gen-'));
    await generateCriTypes(tmp);
    const diff = await firstDifference(GENERATED_DIR, tmp);
    expect(diff, `${diff}; run \`pnpm gen:cri\` and commit packages/core/src/cri/generated`).toBeUndefined();
    expect((await filesUnder(tmp)).length).toBeGreaterThan(80);
  }, 20_000);

  it('a changed or extra committed file is named', async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'syncscope-cri-gen-'));
    const a = path.join(tmp, 'a');
    const b = path.join(tmp, 'b');
    await generateCriTypes(a);
    await cp(a, b, { recursive: true });
    expect(await firstDifference(a, b)).toBeUndefined();
    const file = path.join(a, 'runtime/v1/ContainerStatus.ts');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.replace("'exit_code': (number);", "'exit_code': (number | null);"));
    expect(await firstDifference(a, b)).toBe(
      "runtime/v1/ContainerStatus.ts: differs from the generator's output",
    );
    await writeFile(path.join(a, 'runtime/v1/Old.ts'), '');
    await writeFile(file, text);
    expect(await firstDifference(a, b)).toBe('runtime/v1/Old.ts: committed but no longer generated');
  }, 20_000);

  it('the generator flags say what LOADER_OPTIONS say', () => {
    expect(generatorFlags()).toEqual([
      '--keepCase',
      '--longs=String',
      '--enums=String',
      '--defaults',
      '--oneofs',
      '--grpcLib=@grpc/grpc-js',
    ]);
  });
});
