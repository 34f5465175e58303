/**
 * The examples the managed server applies on a data directory's first boot (those marked for startup): each
 * parsed and admitted as a POST of it would be, and added through the durable engine, so it is stored before
 * the engine gets it. One that fails is warned about and skipped.
 */
import type { PassiveClock } from '@syncscope/core/clock';
import { admitPod, parseManifest } from './admission.ts';
import type { Engine } from './engine.ts';
import type { Example } from './examples.ts';

/** Applies the startup examples: admitted against `engine`, added through `api` (durableEngine). */
export function applyStartupExamples(
  examples: Example[],
  engine: Engine,
  api: Engine,
  clock: PassiveClock,
  warn: (msg: string) => void,
): void {
  for (const ex of examples.filter((e) => e.startup)) {
    const parsed = parseManifest(ex.yaml, 'application/yaml');
    const admitted = parsed.ok
      ? admitPod(parsed.value, manifestNamespace(parsed.value), engine, clock)
      : parsed;
    try {
      if (!admitted.ok) throw new Error(admitted.status.message);
      api.addPod(admitted.pod);
    } catch (err) {
      warn(`example ${ex.file} not applied: ${(err as Error).message}`);
    }
  }
}

function manifestNamespace(v: unknown): string {
  const ns = (v as { metadata?: { namespace?: unknown } } | null)?.metadata?.namespace;
  return typeof ns === 'string' && ns !== '' ? ns : 'default';
}
