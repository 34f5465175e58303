/**
 * The pod view's step in the URL: `#/pods/<ns>/<name>?step=<seq>`. parseRoute (route.ts) reads the path
 * and ignores the query; these helpers read and write the `step` parameter without touching the path.
 */

/** The `step` seq of a hash, or null when absent or not a non-negative integer. */
export function parseStepParam(hash: string): number | null {
  const q = hash.indexOf('?');
  if (q < 0) return null;
  const raw = new URLSearchParams(hash.slice(q + 1)).get('step');
  if (raw === null || !/^\d+$/.test(raw)) return null;
  return Number(raw);
}

/** The hash with `step` set to `seq` (or removed for null), other parameters kept. */
export function withStepParam(hash: string, seq: number | null): string {
  const q = hash.indexOf('?');
  const path = q < 0 ? hash : hash.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : hash.slice(q + 1));
  if (seq === null) params.delete('step');
  else params.set('step', String(seq));
  const rest = params.toString();
  return rest ? `${path}?${rest}` : path;
}
