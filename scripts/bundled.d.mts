/** Types of scripts/bundled.mjs, for the tests and benchmarks that start a bundled tool. */
import type { BuildOptions } from 'esbuild';

export const TOOLS: Record<string, string[]>;
export function bundled(
  name: string,
  entries: string[],
  where?: {
    root?: string;
    cache?: string;
    salt?: string | Buffer;
    esbuild?: BuildOptions;
    finish?: (dir: string) => void | Promise<void>;
  },
): Promise<string>;
export function outFile(dir: string, entry: string): string;
