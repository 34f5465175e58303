/** Types of scripts/bundled.mjs, for the tests and benchmarks that start a bundled tool. */
export const TOOLS: Record<string, string[]>;
export function bundled(
  name: string,
  entries: string[],
  where?: { root?: string; cache?: string },
): Promise<string>;
export function outFile(dir: string, entry: string): string;
