/**
 * The example manifests in the repository's examples/ folder, listed by examples/index.json: each file,
 * what it shows, and whether the server applies it at startup (so the first screen already shows the
 * loop at work: a healthy pod, a crash loop, a missing image, a pod that completes).
 */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const EXAMPLES_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'examples');

export interface Example {
  /** File name, e.g. healthy.yaml. */
  file: string;
  description: string;
  startup: boolean;
  yaml: string;
}

interface IndexEntry {
  file: string;
  description: string;
  startup?: boolean;
}

export async function loadExamples(dir = EXAMPLES_DIR): Promise<Example[]> {
  const index = JSON.parse(await readFile(join(dir, 'index.json'), 'utf8')) as IndexEntry[];
  return Promise.all(
    index.map(async (e) => ({
      file: e.file,
      description: e.description,
      startup: e.startup === true,
      yaml: await readFile(join(dir, e.file), 'utf8'),
    })),
  );
}
