/**
 * formatGoDuration renders a duration the way Go's time.Duration.String() does, because the kubelet's
 * messages embed it with %v / %s: `back-off 1m20s restarting failed container=...`, `pulled ... in 1.5s`.
 *
 *   0 → "0s", 1500 → "1.5s", 80_000 → "1m20s", 300_000 → "5m0s", 3_600_000 → "1h0m0s", 0.5 → "500µs"
 *
 * Input is milliseconds (fractions allowed, rounded to whole nanoseconds).
 */
export function formatGoDuration(ms: number): string {
  let ns = BigInt(Math.round(ms * 1e6));
  if (ns === 0n) return '0s';
  const neg = ns < 0n;
  if (neg) ns = -ns;
  let out: string;
  if (ns < 1_000_000_000n) {
    if (ns < 1_000n) out = `${ns}ns`;
    else if (ns < 1_000_000n) out = `${fraction(ns, 1_000n)}µs`;
    else out = `${fraction(ns, 1_000_000n)}ms`;
  } else {
    const totalSeconds = ns / 1_000_000_000n;
    const subSecond = ns % 1_000_000_000n;
    const h = totalSeconds / 3600n;
    const m = (totalSeconds % 3600n) / 60n;
    const s = totalSeconds % 60n;
    const sec = `${fraction(s * 1_000_000_000n + subSecond, 1_000_000_000n)}s`;
    if (h > 0n) out = `${h}h${m}m${sec}`;
    else if (m > 0n) out = `${m}m${sec}`;
    else out = sec;
  }
  return neg ? `-${out}` : out;
}

/** v / unit with the fractional digits Go prints (trailing zeros trimmed). */
function fraction(v: bigint, unit: bigint): string {
  const whole = v / unit;
  const rest = v % unit;
  if (rest === 0n) return whole.toString();
  const digits = unit.toString().length - 1;
  const frac = rest.toString().padStart(digits, '0').replace(/0+$/, '');
  return `${whole}.${frac}`;
}
