/**
 * The import-log command's arguments (`FILE|- [--year N] [--tz ZONE] [--raw-index OUT] [--explain]`), checked
 * as it starts, and its way out on an error: the message on stderr, the temporary files removed, the exit code.
 */
import { rmSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { checkZone } from '@syncscope/core/kubelet-log';

const USAGE = 'usage: import-log FILE|- [--year N] [--tz ZONE] [--raw-index OUT] [--explain]';
/** temporary directories, removed on exit */
export const temps: string[] = [];

export function removeTemps(): void {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
}

export function fail(msg: string, code = 2): never {
  removeTemps();
  process.stderr.write(`import-log: ${msg}\n`);
  process.exit(code);
}

interface Options {
  file: string;
  year?: number;
  tz?: string;
  rawIndex?: string;
  explain: boolean;
}

export function options(): Options {
  let a: ReturnType<
    typeof parseArgs<{
      options: {
        year: { type: 'string' };
        tz: { type: 'string' };
        help: { type: 'boolean' };
        explain: { type: 'boolean' };
        'raw-index': { type: 'string' };
      };
      allowPositionals: true;
    }>
  >;
  try {
    a = parseArgs({
      options: {
        year: { type: 'string' },
        tz: { type: 'string' },
        help: { type: 'boolean' },
        explain: { type: 'boolean' },
        'raw-index': { type: 'string' },
      },
      allowPositionals: true,
    });
  } catch (e) {
    fail(`${(e as Error).message}\n${USAGE}`);
  }
  if (a.values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const file = a.positionals[0];
  if (!file || a.positionals.length > 1) fail(USAGE);
  const out: Options = { file, explain: a.values.explain === true };
  const index = a.values['raw-index'];
  if (index !== undefined) {
    if (index === '' || index === '-') fail(`--raw-index needs a file name, not "${index}"\n${USAGE}`);
    if (out.explain) fail(`--raw-index and --explain do not go together (--explain shows the raw lines)`);
    out.rawIndex = index;
  }
  if (a.values.year !== undefined) {
    const y = Number(a.values.year);
    if (!/^\d{4}$/.test(a.values.year) || y < 1970)
      fail(`--year must be a four-digit year, not "${a.values.year}"`);
    out.year = y;
  }
  if (a.values.tz !== undefined) {
    try {
      checkZone(a.values.tz);
    } catch {
      fail(`--tz: unknown time zone "${a.values.tz}"`);
    }
    out.tz = a.values.tz;
  }
  return out;
}
