/**
 * The README is for users: at most 250 lines, and its quick start is the two commands that work on a fresh
 * machine (start on the simulated node; the whole test suite, what .ci/run calls).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url);
const readme = readFileSync(new URL('README.md', ROOT), 'utf8');
const ci = readFileSync(new URL('.ci/run', ROOT), 'utf8');

describe('README.md', () => {
  it('is at most 250 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(250);
  });

  it('starts with the two commands, the second the one CI runs', () => {
    const quick = readme.slice(
      readme.indexOf('## Quick start'),
      readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1),
    );
    const commands = [...quick.matchAll(/```sh\n([^\n]+)\n```/g)].map((m) => m[1]);
    expect(commands).toHaveLength(2);
    expect(commands[0]).toMatch(/ start$/);
    expect(ci).toContain(commands[1] as string);
  });
});
