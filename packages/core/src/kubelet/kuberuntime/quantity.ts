import { parseQuantity as parseAPIQuantity } from '../../api/pod-schema.ts';

/**
 * A resource.Quantity in base units (bytes, cores) for the runtime's config. Quantities were validated when
 * the pod was admitted (api/pod-schema.ts parses them); an unparsable one counts as 0 here.
 */
export function parseQuantity(q: string | number): number {
  return typeof q === 'number' ? q : (parseAPIQuantity(q.trim()) ?? 0);
}
