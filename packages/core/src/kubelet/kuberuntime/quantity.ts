/** resource.Quantity → number (bytes for memory, cores for cpu): "128Mi", "1G", "500m", "1.5", "2e3". */
const SUFFIX: Record<string, number> = {
  '': 1,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

export function parseQuantity(q: string | number): number {
  if (typeof q === 'number') return q;
  const m = /^([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)([a-zA-Z]*)$/.exec(q.trim());
  if (!m) throw new Error(`quantities must match the regular expression: ${q}`);
  const mult = SUFFIX[m[2] ?? ''];
  if (mult === undefined) throw new Error(`unable to parse quantity's suffix: ${q}`);
  return Number(m[1]) * mult;
}
