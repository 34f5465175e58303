/**
 * One check per schema, shared by strict pod decoding and the trace event check. In Node it is compiled on
 * first use with TypeBox's TypeCompiler (generated code, several times faster than walking the schema). In
 * a browser the schema is walked by Value.Check: the dashboard's Content-Security-Policy has no
 * 'unsafe-eval', so generated code would be refused (and reported) there. Same answers either way; pure.
 */

import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';

/** Generated code is allowed: Node (a page, or a worker of a page, runs under the page's CSP). */
const CAN_COMPILE =
  typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === 'string';

export type Checker<T extends TSchema> = (v: unknown) => v is Static<T>;

/** A check of `schema`, compiled (where allowed, unless `compile` is false) the first time it runs. */
export function lazyCheck<T extends TSchema>(schema: T, compile = CAN_COMPILE): Checker<T> {
  let check: ((v: unknown) => boolean) | undefined;
  return (v: unknown): v is Static<T> => {
    if (!check) {
      if (compile) {
        const compiled = TypeCompiler.Compile(schema);
        check = (x) => compiled.Check(x);
      } else check = (x) => Value.Check(schema, x);
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
