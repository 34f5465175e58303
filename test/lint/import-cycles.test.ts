/**
 * No import cycles in the project's own source (packages/*, apps/*, bench, test): each file's relative imports,
 * `import type` included, resolved to files, and the strongly connected components of that graph found
 * (Tarjan); any component of more than one file is a cycle, named file by file. A cycle means two files that
 * cannot be read, tested or moved one without the other; the cure is usually a third file with what both need.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ROOTS = ['packages', 'apps', 'bench', 'test'];
const SOURCE = /\.(ts|tsx)$/;

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name === 'generated' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sources(path, out);
    else if (SOURCE.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** The relative specifiers of a file's static imports and re-exports (side-effect imports too). */
export function relativeImports(text: string): string[] {
  const out: string[] = [];
  const re = /^\s*(?:import|export)\b[^'"`;]*?(?:\bfrom\s*)?['"](\.{1,2}\/[^'"]+)['"]/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m[1] as string);
  return out;
}

export function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, idx.get(w) as number));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) found.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found;
}

describe('import cycles', () => {
  it('finds a planted one (two files that import each other) and none in a chain', () => {
    expect(
      cycles(
        new Map([
          ['a', ['b']],
          ['b', ['a']],
          ['c', ['a']],
        ]),
      ),
    ).toEqual([['a', 'b']]);
    expect(
      cycles(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', []],
        ]),
      ),
    ).toEqual([]);
    expect(
      relativeImports("import type { A } from './a.ts';\nexport * from '../b.ts';\nimport './c.ts';"),
    ).toEqual(['./a.ts', '../b.ts', './c.ts']);
  });

  it('the source has none', () => {
    const files = ROOTS.flatMap((r) => sources(join(ROOT, r)));
    const known = new Set(files);
    const graph = new Map<string, string[]>();
    for (const f of files) {
      const deps = relativeImports(readFileSync(f, 'utf8'))
        .map((s) => resolve(dirname(f), s))
        .filter((p) => known.has(p));
      graph.set(f, deps);
    }
    const named = cycles(graph).map((c) => c.map((f) => relative(ROOT, f)).join(' ↔ '));
    expect(named).toEqual([]);
  });
});
