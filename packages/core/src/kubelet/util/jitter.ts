/**
 * wait.Jitter (k8s.io/apimachinery/pkg/util/wait): d + random·factor·d, i.e. a value in [d, d·(1+factor)).
 * The random source is injected so tests can pin the exact requeue time.
 */
export function jitter(durationMs: number, maxFactor: number, random: () => number): number {
  const factor = maxFactor <= 0 ? 1 : maxFactor;
  return durationMs + random() * factor * durationMs;
}

/** Go's time.Duration String() for a millisecond count: 1.5s, 3m0s, 1h2m3s, 250ms. */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  const neg = ms < 0;
  let rest = Math.abs(ms);
  if (rest < 1000) return `${neg ? '-' : ''}${trimNum(rest)}ms`;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const s = `${trimNum(rest / 1000)}s`;
  const out = h > 0 ? `${h}h${m}m${s}` : m > 0 ? `${m}m${s}` : s;
  return neg ? `-${out}` : out;
}

function trimNum(n: number): string {
  return String(Number(n.toFixed(9)));
}
