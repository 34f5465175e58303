/**
 * Adversarial patch bodies for the tests of patch.ts and the PATCH route (and nothing else): the copy
 * doubling of the issue at an exact size, and a seeded generator of patches that try to make the server
 * work far more than the request is big (copy amplification, deep nesting, huge lists, many operations).
 */
import type { Pod } from '@syncscope/core/api';
import { setPodDefaults } from '@syncscope/core/api/defaults';
import type { PatchType } from './patch.ts';

/**
 * A JSON patch of exactly `bytes` bytes that adds `/a: [1]` and then copies `/a` into itself as many
 * times as fit: each copy doubles the document (963 bytes: 23 copies, 2^23 items; 1,147 bytes: 28).
 */
export function copyDoubling(bytes: number): string {
  const add = '{"op":"add","path":"/a","value":[1]}';
  const copy = ',{"op":"copy","from":"/a","path":"/a/-"}';
  const n = Math.floor((bytes - 2 - add.length) / copy.length);
  const body = `[${add}${copy.repeat(n)}`;
  return `${body}${' '.repeat(bytes - body.length - 1)}]`;
}

export { prng } from '@syncscope/core/util/prng';

export interface Adversary {
  name: string;
  type: PatchType;
  body: string;
}

const JSON_PATCH = 'application/json-patch+json';
const MERGE = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';

/** ≤ `max` bytes of `unit` repeated, joined by commas. */
const fill = (unit: string, max: number) =>
  Array(Math.max(1, Math.floor(max / (unit.length + 1)))).fill(unit);

/** One adversarial patch of at most `maxBytes` (≤ 1 MiB) bytes, of a kind drawn from `rnd`. */
export function adversary(rnd: () => number, maxBytes: number): Adversary {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const size = Math.floor(maxBytes * (0.25 + 0.75 * rnd()));
  const kinds: (() => Adversary)[] = [
    () => {
      const bytes = 900 + Math.floor(rnd() * 4000);
      return { name: `copy doubling, ${bytes} bytes`, type: JSON_PATCH, body: copyDoubling(bytes) };
    },
    () => {
      // copies of a growing subtree to fresh keys: the document grows without any one list doubling
      const ops = ['{"op":"add","path":"/b","value":{"x":[1,2,3,4,5,6,7,8]}}'];
      for (let i = 0; ops.join(',').length < Math.min(size, 200_000); i++)
        ops.push(`{"op":"copy","from":"/b","path":"/b/k${i}"}`);
      return {
        name: `copy into fresh keys, ${ops.length} ops`,
        type: JSON_PATCH,
        body: `[${ops.join(',')}]`,
      };
    },
    () => {
      const depth = Math.floor(size / 6);
      const type = pick([MERGE, STRATEGIC] as const);
      return {
        name: `nested ${depth} deep (${type})`,
        type,
        body: `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
      };
    },
    () => {
      const depth = Math.floor(size / 2) - 60;
      const body = `[{"op":"add","path":"/spec/x","value":${'['.repeat(depth)}${']'.repeat(depth)}}]`;
      return { name: `JSON patch value nested ${depth} deep`, type: JSON_PATCH, body };
    },
    () => {
      // a long list, then many operations at its head (each shifts every element)
      const ops = fill('{"op":"add","path":"/l/0","value":0}', size / 3);
      const list = fill('0', size - size / 3);
      const body = `[{"op":"add","path":"/l","value":[${list.join(',')}]},${ops.join(',')}]`;
      return { name: `${ops.length} inserts at the head of ${list.length} items`, type: JSON_PATCH, body };
    },
    () => {
      const ops = fill('{"op":"test","path":"/metadata/name","value":"web"}', size);
      return { name: `${ops.length} test operations`, type: JSON_PATCH, body: `[${ops.join(',')}]` };
    },
    () => {
      const n = Math.floor(size / 60);
      const env = Array.from({ length: n }, (_, i) => `{"name":"V${i}","value":"${i}"}`);
      const order = Array.from({ length: n }, (_, i) => `{"name":"V${n - 1 - i}"}`);
      const half = Math.floor(n / 2);
      const body = `{"spec":{"containers":[{"name":"app","$setElementOrder/env":[${order.slice(0, half).join(',')}],"env":[${env.join(',')}]}]}}`;
      return { name: `strategic merge of ${n} env entries`, type: STRATEGIC, body };
    },
    () => {
      const n = Math.floor(size / 30);
      const keys = Array.from({ length: n }, (_, i) => `"k${i}":"v${i}"`);
      return {
        name: `merge patch of ${n} annotations`,
        type: pick([MERGE, STRATEGIC] as const),
        body: `{"metadata":{"annotations":{${keys.join(',')}}}}`,
      };
    },
    () => {
      const n = Math.floor(size / 20);
      const items = Array.from({ length: n }, (_, i) => `"f${i % 1000}"`);
      return {
        name: `delete ${n} items from a primitive list`,
        type: STRATEGIC,
        body: `{"metadata":{"$deleteFromPrimitiveList/finalizers":[${items.join(',')}],"finalizers":[${items.join(',')}]}}`,
      };
    },
  ];
  return pick(kinds)();
}

/** The pod the patch tests start from: one container `app` with `env` variables V0, V1, …. */
export function envPod(env: number): Pod {
  return setPodDefaults({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', uid: 'u1', finalizers: ['f1', 'f2'] },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'busybox',
          env: Array.from({ length: env }, (_, i) => ({ name: `V${i}`, value: String(i) })),
        },
      ],
    },
  } as Pod);
}
