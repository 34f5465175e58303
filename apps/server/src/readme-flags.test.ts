import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../../', import.meta.url);
const main = readFileSync(new URL('apps/server/src/main.ts', ROOT), 'utf8');
const readme = readFileSync(new URL('README.md', ROOT), 'utf8');
const options = readme.slice(
  readme.indexOf('## Options'),
  readme.indexOf('\n## ', readme.indexOf('## Options') + 1),
);

describe("the README's options table", () => {
  it('lists every flag the server takes', () => {
    const flags = [...main.matchAll(/^ {4}'?([a-z][a-z-]*)'?: \{ type: '(?:string|boolean)'/gm)].map(
      (m) => m[1],
    );
    expect(flags.length).toBeGreaterThan(10);
    for (const flag of flags) expect(options, `--${flag}`).toContain(`\`--${flag}`);
  });

  it('lists every environment variable the server reads', () => {
    const vars = new Set([...main.matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1] as string));
    expect(vars.size).toBeGreaterThan(10);
    for (const name of vars) expect(options, name).toMatch(new RegExp(`\`${name}(=[^\`]*)?\``));
  });
});
