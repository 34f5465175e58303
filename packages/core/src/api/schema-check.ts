/**
 * One compiled check per schema, shared by strict pod decoding and the trace event check. Compiled on first
 * use with TypeBox's TypeCompiler (generated code, several times faster than walking the schema); where code
 * generation is forbidden (a page whose Content-Security-Policy has no 'unsafe-eval', as the dashboard's) the
 * same schema is walked by Value.Check instead: same answers, slower. Browser-safe, pure.
 */

import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';

export type Checker<T extends TSchema> = (v: unknown) => v is Static<T>;

/** A check of `schema`, compiled the first time it runs. */
export function lazyCheck<T extends TSchema>(schema: T): Checker<T> {
  let check: ((v: unknown) => boolean) | undefined;
  return (v: unknown): v is Static<T> => {
    if (!check) {
      try {
        const compiled = TypeCompiler.Compile(schema);
        check = (x) => compiled.Check(x);
      } catch {
        check = (x) => Value.Check(schema, x);
      }
    }
    return check(v);
  };
}

/** `/spec/containers/0/name` as the API server names the field, `spec.containers[0].name`, reading `root`. */
export function fieldPath(root: unknown, pointer: string): string {
  if (pointer === '') return '';
  let out = '';
  let node: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) out += `[${key}]`;
    else out += out === '' ? key : `.${key}`;
    node =
      typeof node === 'object' && node !== null && Object.hasOwn(node, key)
        ? (node as Record<string, unknown>)[key]
        : undefined;
  }
  return out;
}
