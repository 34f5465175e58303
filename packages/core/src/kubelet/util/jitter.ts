/**
 * wait.Jitter (k8s.io/apimachinery/pkg/util/wait): d + random·factor·d, i.e. a value in [d, d·(1+factor)).
 * The random source is injected so tests can pin the exact requeue time.
 */
export function jitter(durationMs: number, maxFactor: number, random: () => number): number {
  const factor = maxFactor <= 0 ? 1 : maxFactor;
  return durationMs + random() * factor * durationMs;
}
