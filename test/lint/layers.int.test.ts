/**
 * The layer rules (biome.json's noRestrictedImports overrides) fire: for each rule a file that crosses it is
 * planted where the rule applies, and `biome lint` must refuse it with the rule's message; beside each, a file
 * importing what the layer may use must pass. The planted files carry this process's pid and are removed after.
 */
import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Plant {
  rule: string;
  dir: string;
  from: string;
  /** a part of the rule's message; undefined: the import is allowed and must pass */
  refused?: string;
}

const PLANTS: Plant[] = [
  {
    rule: 'core ↛ server',
    dir: 'packages/core/src/events',
    from: '@syncscope/server',
    refused: 'imports neither',
  },
  {
    rule: 'core/sim ↛ kubelet',
    dir: 'packages/core/src/sim',
    from: '../kubelet/kubelet.ts',
    refused: 'never the kubelet',
  },
  {
    rule: 'core/api ↛ engine',
    dir: 'packages/core/src/api',
    from: '../kubelet/kubelet.ts',
    refused: 'nothing of the engine',
  },
  {
    rule: 'core/kubelet ↛ kubelet-log',
    dir: 'packages/core/src/kubelet',
    from: '../kubelet-log/index.ts',
    refused: 'does not read kubelet logs',
  },
  { rule: 'core/kubelet → its own parts', dir: 'packages/core/src/kubelet', from: './pod-workers.ts' },
  { rule: 'web ↛ node', dir: 'apps/web/src/lib', from: 'node:fs', refused: 'runs in a browser' },
  {
    rule: 'web ↛ core internals by package',
    dir: 'apps/web/src/lib',
    from: '@syncscope/core/cri',
    refused: 'browser-safe core modules',
  },
  {
    rule: 'web ↛ core internals by relative path',
    dir: 'apps/web/src/lib',
    from: '../../../../packages/core/src/kubelet/kubelet.ts',
    refused: 'never by a relative path',
  },
  { rule: 'web → core/trace', dir: 'apps/web/src/lib', from: '@syncscope/core/trace' },
  {
    rule: 'bench ↛ relative paths',
    dir: 'bench',
    from: '../apps/server/src/app.ts',
    refused: 'never by relative path',
  },
  {
    rule: 'routes ↛ store internals',
    dir: 'apps/server/src/routes',
    from: '../store/journal.ts',
    refused: 'store/index.ts',
  },
  { rule: 'routes → store/index', dir: 'apps/server/src/routes', from: '../store/index.ts' },
  {
    rule: 'kube-api ↛ engine internals',
    dir: 'apps/server/src/kube-api',
    from: '@syncscope/core/kubelet/container/runtime',
    refused: 'through Engine',
  },
  {
    rule: 'kube-api ↛ store internals',
    dir: 'apps/server/src/kube-api',
    from: '../store/journal.ts',
    refused: 'through Engine',
  },
  {
    rule: 'kube-api → configuration',
    dir: 'apps/server/src/kube-api',
    from: '@syncscope/core/kubelet/configuration',
  },
];

const planted = PLANTS.map((p, i) => join(p.dir, `planted-layer-${process.pid}-${i}.ts`));
afterAll(() => {
  for (const f of planted) rmSync(join(ROOT, f), { force: true });
});

interface Diagnostic {
  category: string;
  message: string;
  location: { path: string };
}

function lint(files: string[]): Promise<Diagnostic[]> {
  return new Promise((resolve, reject) => {
    execFile(
      join(ROOT, 'node_modules/.bin/biome'),
      ['lint', '--reporter=json', '--max-diagnostics=none', ...files],
      { cwd: ROOT, maxBuffer: 16 << 20 },
      (_err, stdout) => {
        try {
          resolve((JSON.parse(stdout) as { diagnostics: Diagnostic[] }).diagnostics);
        } catch (e) {
          reject(new Error(`biome gave no JSON report: ${String(e)}\n${stdout.slice(0, 2000)}`));
        }
      },
    );
  });
}

describe('layer rules', () => {
  it('refuse each planted crossing with the rule’s message and let the allowed imports pass', async () => {
    PLANTS.forEach((p, i) => {
      writeFileSync(
        join(ROOT, planted[i] as string),
        `import * as m from '${p.from}';\nexport const used = m;\n`,
      );
    });
    const diags = (await lint(planted)).filter((d) => d.category === 'lint/style/noRestrictedImports');
    const seen = PLANTS.map((p, i) => ({
      rule: p.rule,
      messages: diags.filter((d) => d.location.path === planted[i]).map((d) => d.message),
    }));
    for (const [i, p] of PLANTS.entries()) {
      const got = seen[i]?.messages ?? [];
      if (p.refused === undefined) expect(got, p.rule).toEqual([]);
      else expect(got.join(' | '), p.rule).toContain(p.refused);
    }
  });
});
