/**
 * resource.Quantity as the API server reads it: the pattern strict decoding checks (with the decoder's
 * message) and the parse into base units that validation and the engine compare. Browser-safe, pure.
 */

/** The decoder's text for a value that is not a quantity. */
export const QUANTITY_MSG =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/** The quantities parseQuantity reads, as a JSON Schema `pattern`. */
const QUANTITY_PATTERN =
  '^([+-]?)(\\d+(?:\\.\\d*)?|\\.\\d+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?\\d+)?$';
const QUANTITY = new RegExp(QUANTITY_PATTERN);

const SUFFIX: Record<string, number> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

/**
 * A resource.Quantity (`100m`, `64Mi`, `1Gi`, `1.5`, `1e3`) in base units (cores, bytes), or undefined when
 * it does not parse. A double is precise enough to compare a request with its limit.
 */
export function parseQuantity(s: string): number | undefined {
  const m = QUANTITY.exec(s);
  if (!m) return undefined;
  const [, sign, digits, suffix] = m as unknown as [string, string, string, string | undefined];
  let mult = 1;
  if (suffix)
    mult = suffix[0] === 'e' || suffix[0] === 'E' ? 10 ** Number(suffix.slice(1)) : (SUFFIX[suffix] ?? 1);
  const n = Number(digits) * mult;
  if (!Number.isFinite(n)) return undefined;
  return sign === '-' ? -n : n;
}
