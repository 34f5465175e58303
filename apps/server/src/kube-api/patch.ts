/**
 * The three PATCH bodies the apiserver takes for a pod, applied to the pod as JSON:
 *
 *   application/json-patch+json            RFC 6902: add, remove, replace, move, copy, test
 *   application/merge-patch+json           RFC 7386: maps merged, null removes a key, lists replaced
 *   application/strategic-merge-patch+json the apiserver's strategic merge, for the pod fields that need
 *                                          it: lists of objects with a merge key (containers by name, env
 *                                          by name, ports by containerPort, …) are merged item by item;
 *                                          `$patch: delete|replace|merge`, `$setElementOrder/<list>`,
 *                                          `$retainKeys` and `$deleteFromPrimitiveList/<list>` are read.
 *                                          Other lists are replaced, as their patch strategy says.
 *
 * Pure functions: a patch that cannot be applied throws PatchError (the caller answers with its code);
 * nothing is changed in place.
 *
 * Work is bounded by the request: merge and strategic merge walk the patch once (recursion follows the
 * patch, whose depth the caller has checked with jsonBounds) and index a merged list by its merge key, so
 * they take time linear in the pod and the patch; a JSON patch is bounded by JsonPatchLimits. What a patch
 * makes may still be larger or deeper than a pod may be: the caller checks the result with jsonBounds.
 */
import {
  JSON_PATCH_MAX_COPY_BYTES,
  JSON_PATCH_MAX_COPY_VALUES,
  JSON_PATCH_MAX_WORK,
  MAX_JSON_PATCH_OPERATIONS,
} from '../limits.ts';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

/** A patch that cannot be applied (422), or that asks for more work than one request may (413). */
export class PatchError extends Error {
  constructor(
    message: string,
    readonly code: 413 | 422 = 422,
  ) {
    super(message);
  }
}

export const PATCH_MEDIA_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
] as const;
export type PatchType = (typeof PATCH_MEDIA_TYPES)[number];

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export function applyPatch(type: PatchType, target: Json, patch: Json): Json {
  switch (type) {
    case 'application/json-patch+json':
      return jsonPatch(target, patch);
    case 'application/merge-patch+json':
      return mergePatch(target, patch);
    case 'application/strategic-merge-patch+json':
      return strategicMerge(target, patch);
  }
}

/**
 * Whether `v` fits: at most `maxDepth` levels of nesting (a scalar is 0, `{}` is 1) and at most `maxBytes`
 * as JSON (escapes not counted). Walks without recursion and stops at the first excess: 'deep', 'large',
 * or undefined when it fits.
 */
export function jsonBounds(v: Json, maxDepth: number, maxBytes: number): 'deep' | 'large' | undefined {
  let bytes = 0;
  const values: Json[] = [v];
  const depths: number[] = [0];
  while (values.length > 0) {
    const x = values.pop() as Json;
    const depth = depths.pop() as number;
    if (Array.isArray(x)) {
      if (depth >= maxDepth) return 'deep';
      bytes += x.length + 1;
      for (const item of x) {
        values.push(item);
        depths.push(depth + 1);
      }
    } else if (isObj(x)) {
      if (depth >= maxDepth) return 'deep';
      bytes += 1;
      for (const k in x) {
        bytes += Buffer.byteLength(k) + 4;
        values.push(x[k] as Json);
        depths.push(depth + 1);
      }
    } else bytes += scalarBytes(x);
    if (bytes > maxBytes) return 'large';
  }
  return undefined;
}

// ---- RFC 7386 ---------------------------------------------------------------------------------------

export function mergePatch(target: Json, patch: Json): Json {
  if (!isObj(patch)) return patch;
  const out: Obj = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else setMember(out, k, mergePatch(Object.hasOwn(out, k) ? (out[k] as Json) : null, v));
  }
  return out;
}

// ---- RFC 6902 ---------------------------------------------------------------------------------------

/**
 * What one JSON patch may cost (limits.ts has the server's; tests pass smaller ones). Every operation's own
 * work is bounded by its text (a path is walked token by token) except three things, each counted here:
 * the operations themselves, the bytes and values `copy` makes (copying a list into itself doubles the
 * document) and the array elements a splice shifts or a `test` compares.
 */
export interface JsonPatchLimits {
  maxOperations: number;
  maxCopyBytes: number;
  maxCopyValues: number;
  maxWork: number;
}

const JSON_PATCH_LIMITS: JsonPatchLimits = {
  maxOperations: MAX_JSON_PATCH_OPERATIONS,
  maxCopyBytes: JSON_PATCH_MAX_COPY_BYTES,
  maxCopyValues: JSON_PATCH_MAX_COPY_VALUES,
  maxWork: JSON_PATCH_MAX_WORK,
};

/** The running cost of one patch; `charge` throws once the work passes its limit. */
class Budget {
  copied = 0;
  copiedValues = 0;
  private work = 0;

  constructor(readonly limits: JsonPatchLimits) {}

  charge(units: number): void {
    this.work += units;
    if (this.work > this.limits.maxWork)
      throw new PatchError(
        `the JSON patch shifts or compares more than ${this.limits.maxWork} array elements and object members`,
        413,
      );
  }
}

function pointer(path: unknown): string[] {
  if (typeof path !== 'string' || (path !== '' && !path.startsWith('/')))
    throw new PatchError(`invalid JSON pointer: ${JSON.stringify(path)}`);
  return path === ''
    ? []
    : path
        .slice(1)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function parentOf(doc: Json, tokens: string[]): [Json, string] {
  let cur = doc;
  for (let i = 0; i < tokens.length - 1; i++) {
    const t = tokens[i] as string;
    const next = Array.isArray(cur)
      ? cur[Number(t)]
      : isObj(cur) && Object.hasOwn(cur, t)
        ? cur[t]
        : undefined;
    if (next === undefined) throw new PatchError(`path /${tokens.join('/')} does not exist`);
    cur = next;
  }
  return [cur, tokens[tokens.length - 1] as string];
}

function get(doc: Json, tokens: string[]): Json {
  if (tokens.length === 0) return doc;
  const [parent, key] = parentOf(doc, tokens);
  const v = Array.isArray(parent)
    ? parent[Number(key)]
    : isObj(parent) && Object.hasOwn(parent, key)
      ? parent[key]
      : undefined;
  if (v === undefined) throw new PatchError(`path /${tokens.join('/')} does not exist`);
  return v;
}

function index(arr: Json[], key: string, forAdd: boolean): number {
  if (forAdd && key === '-') return arr.length;
  if (!/^(0|[1-9]\d*)$/.test(key)) throw new PatchError(`invalid array index: ${key}`);
  const i = Number(key);
  if (i > arr.length || (!forAdd && i === arr.length)) throw new PatchError(`array index out of range: ${i}`);
  return i;
}

/** Sets a member as data, so that a key named `__proto__` is a member like any other. */
function setMember(obj: Obj, key: string, value: Json): void {
  if (key === '__proto__')
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}

function add(doc: Json, tokens: string[], value: Json, budget: Budget): Json {
  if (tokens.length === 0) return value;
  const [parent, key] = parentOf(doc, tokens);
  if (Array.isArray(parent)) {
    const i = index(parent, key, true);
    budget.charge(parent.length - i);
    parent.splice(i, 0, value);
  } else if (isObj(parent)) setMember(parent, key, value);
  else throw new PatchError(`path /${tokens.join('/')} has no parent object`);
  return doc;
}

function remove(doc: Json, tokens: string[], budget: Budget): Json {
  get(doc, tokens);
  const [parent, key] = parentOf(doc, tokens);
  if (Array.isArray(parent)) {
    const i = index(parent, key, false);
    budget.charge(parent.length - i);
    parent.splice(i, 1);
  } else if (isObj(parent)) delete parent[key];
  return doc;
}

/** The size of a scalar as JSON, in bytes (escapes not counted). */
function scalarBytes(v: Json): number {
  return typeof v === 'string' ? Buffer.byteLength(v) + 2 : v === null ? 4 : String(v).length;
}

/**
 * The size of `v` as JSON in bytes (escapes not counted) and in values, walked without recursion; stops as
 * soon as either is past its max and returns what it had counted then. Allocates nothing per value: a
 * refused copy costs a walk.
 */
function jsonSize(v: Json, maxBytes: number, maxValues: number): { bytes: number; values: number } {
  let bytes = 0;
  let values = 0;
  const stack: Json[] = [v];
  while (stack.length > 0 && bytes <= maxBytes && values <= maxValues) {
    const x = stack.pop() as Json;
    values++;
    if (Array.isArray(x)) {
      bytes += x.length + 1;
      for (const item of x) stack.push(item);
    } else if (isObj(x)) {
      bytes += 1;
      for (const k in x) {
        bytes += k.length + 4;
        stack.push(x[k] as Json);
      }
    } else bytes += typeof x === 'number' && x >= 0 && x < 10 ? 1 : scalarBytes(x);
  }
  return { bytes, values };
}

/**
 * A deep copy of `v` for a `copy` operation, its JSON size first added to the budget: past maxCopyBytes
 * (or maxCopyValues) nothing is copied and it throws, as json-patch's AccumulatedCopySizeLimit does. Made without recursion
 * (the document may be deeper than the stack), with parallel stacks (source, the container it goes into,
 * its key there) rather than one of tuples: a copy may hold a million small values.
 */
function copyOf(v: Json, budget: Budget): Json {
  const { maxCopyBytes, maxCopyValues } = budget.limits;
  const size = jsonSize(v, maxCopyBytes - budget.copied, maxCopyValues - budget.copiedValues);
  budget.copied += size.bytes;
  budget.copiedValues += size.values;
  if (budget.copied > maxCopyBytes)
    throw new PatchError(
      `Unable to complete the copy, the accumulated size increase of copy is ${budget.copied}, exceeding the limit ${maxCopyBytes}`,
    );
  if (budget.copiedValues > maxCopyValues)
    throw new PatchError(
      `Unable to complete the copy, the accumulated number of values copied is ${budget.copiedValues}, exceeding the limit ${maxCopyValues}`,
    );
  const root: Json[] = [null];
  const srcs: Json[] = [v];
  const intos: (Obj | Json[])[] = [root];
  const ats: (string | number)[] = [0];
  while (srcs.length > 0) {
    const src = srcs.pop() as Json;
    const into = intos.pop() as Obj | Json[];
    const at = ats.pop() as string | number;
    let dst: Json = src;
    if (Array.isArray(src)) {
      dst = new Array(src.length);
      for (let i = src.length - 1; i >= 0; i--) {
        srcs.push(src[i] as Json);
        intos.push(dst);
        ats.push(i);
      }
    } else if (isObj(src)) {
      dst = {};
      for (const k in src) {
        srcs.push(src[k] as Json);
        intos.push(dst);
        ats.push(k);
      }
    }
    if (typeof at === 'number') (into as Json[])[at] = dst;
    else setMember(into as Obj, at, dst);
  }
  return root[0] as Json;
}

/**
 * RFC 6902 equality of `a` (in the document) and `b` (the patch's value). The walk follows `b`, so it
 * recurses no deeper than the patch; members and elements compared are charged to the budget.
 */
function equal(a: Json, b: Json, budget: Budget): boolean {
  if (Array.isArray(b)) {
    if (!Array.isArray(a) || a.length !== b.length) return false;
    budget.charge(b.length);
    return b.every((x, i) => equal(a[i] as Json, x, budget));
  }
  if (isObj(b)) {
    if (!isObj(a)) return false;
    const keys = Object.keys(a);
    budget.charge(keys.length);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => Object.hasOwn(b, k) && equal(a[k] as Json, b[k] as Json, budget));
  }
  return a === b;
}

/** JSON with object keys sorted: two values are equal exactly when their canonical forms are. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObj(v)) {
    const keys = Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

/**
 * Whether two JSON values are equal, as their canonical forms would be (a member whose value is undefined
 * is absent), without building those forms: it stops at the first difference. Recursive: for values as deep
 * as a pod may be (MAX_OBJECT_DEPTH).
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i] ?? null, b[i] ?? null)) return false;
    return true;
  }
  if (!isObj(a) || !isObj(b)) return false;
  let members = 0;
  for (const k in a) {
    if (a[k] === undefined) continue;
    members++;
    if (!Object.hasOwn(b, k) || !jsonEqual(a[k], b[k])) return false;
  }
  for (const k in b) if (b[k] !== undefined) members--;
  return members === 0;
}

export function jsonPatch(target: Json, patch: Json, limits: JsonPatchLimits = JSON_PATCH_LIMITS): Json {
  if (!Array.isArray(patch)) throw new PatchError('a JSON patch must be an array of operations');
  if (patch.length > limits.maxOperations)
    throw new PatchError(
      `The allowed maximum operations in a JSON patch is ${limits.maxOperations}, got ${patch.length}`,
      413,
    );
  const budget = new Budget(limits);
  let doc: Json = structuredClone(target);
  for (const op of patch) {
    if (!isObj(op)) throw new PatchError('a JSON patch operation must be an object');
    const path = pointer(op.path);
    const value = op.value;
    switch (op.op) {
      case 'add':
        if (value === undefined) throw new PatchError('add operation does not apply: missing value');
        doc = add(doc, path, structuredClone(value), budget);
        break;
      case 'remove':
        doc = remove(doc, path, budget);
        break;
      case 'replace':
        if (value === undefined) throw new PatchError('replace operation does not apply: missing value');
        get(doc, path);
        doc = add(remove(doc, path, budget), path, structuredClone(value), budget);
        break;
      case 'move': {
        const from = pointer(op.from);
        const v = get(doc, from);
        doc = add(remove(doc, from, budget), path, v, budget);
        break;
      }
      case 'copy':
        doc = add(doc, path, copyOf(get(doc, pointer(op.from)), budget), budget);
        break;
      case 'test':
        if (!equal(get(doc, path), value ?? null, budget))
          throw new PatchError(`testing value /${path.join('/')} failed`);
        break;
      default:
        throw new PatchError(`unexpected kind of operation: ${JSON.stringify(op.op)}`);
    }
  }
  return doc;
}

// ---- strategic merge ----------------------------------------------------------------------------------

/** The merge keys of the pod's lists that are merged, by field name (the PodSpec's patchMergeKey tags). */
const MERGE_KEYS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  ports: 'containerPort',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  volumes: 'name',
  imagePullSecrets: 'name',
  hostAliases: 'ip',
  readinessGates: 'conditionType',
  resourceClaims: 'name',
  topologySpreadConstraints: 'topologyKey',
  ownerReferences: 'uid',
  conditions: 'type',
};

const ELEMENT_ORDER = '$setElementOrder/';
const DELETE_PRIMITIVE = '$deleteFromPrimitiveList/';

export function strategicMerge(target: Json, patch: Json): Json {
  if (!isObj(patch)) return patch;
  const directive = patch.$patch;
  if (directive === 'delete') return null;
  if (directive === 'replace') {
    const { $patch: _p, ...rest } = patch;
    return rest;
  }
  const out: Obj = isObj(target) ? { ...target } : {};
  if (Array.isArray(patch.$retainKeys)) {
    const keep = new Set(patch.$retainKeys.map(String));
    for (const k of Object.keys(out)) if (!keep.has(k)) delete out[k];
  }
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k === '$retainKeys' || k.startsWith(ELEMENT_ORDER)) continue;
    if (k.startsWith(DELETE_PRIMITIVE)) {
      const name = k.slice(DELETE_PRIMITIVE.length);
      const drop = new Set((Array.isArray(v) ? v : []).map(canonical));
      const cur = out[name];
      if (Array.isArray(cur)) out[name] = cur.filter((x) => !drop.has(canonical(x)));
      continue;
    }
    if (v === null) {
      delete out[k];
      continue;
    }
    const key = Object.hasOwn(MERGE_KEYS, k) ? MERGE_KEYS[k] : undefined;
    const cur = Object.hasOwn(out, k) ? (out[k] as Json) : null;
    if (Array.isArray(v) && key !== undefined)
      out[k] = mergeList(Array.isArray(cur) ? cur : [], v, key, patch[`${ELEMENT_ORDER}${k}`]);
    else setMember(out, k, strategicMerge(cur, v));
  }
  return out;
}

/**
 * Merges `patch` into `target` item by item, matched by the merge key: each list indexed once (a Map from
 * the key's canonical form to the item's place), so the merge is linear in the two lists.
 */
function mergeList(target: Json[], patch: Json[], key: string, order: Json | undefined): Json[] {
  // undefined marks an item deleted; the first item with a key is the one a patch item merges into
  const out: (Json | undefined)[] = [...target];
  const at = new Map<string, number>();
  out.forEach((x, i) => {
    if (!isObj(x)) return;
    const k = canonical(x[key]);
    if (!at.has(k)) at.set(k, i);
  });
  for (const item of patch) {
    if (!isObj(item)) throw new PatchError(`a list merged by ${key} must hold objects`);
    if (item.$patch === 'replace') return patch.filter((x) => !(isObj(x) && x.$patch === 'replace'));
    const k = item[key];
    if (k === undefined)
      throw new PatchError(`map: ${canonical(item)} does not contain declared merge key: ${key}`);
    const ck = canonical(k);
    const i = at.get(ck);
    if (item.$patch === 'delete') {
      if (i !== undefined) {
        out[i] = undefined;
        at.delete(ck);
      }
      continue;
    }
    if (i !== undefined) out[i] = strategicMerge(out[i] as Json, item) as Json;
    else {
      at.set(ck, out.length);
      out.push(strategicMerge(null, item) as Json);
    }
  }
  const merged = out.filter((x): x is Json => x !== undefined);
  if (!Array.isArray(order)) return merged;
  // $setElementOrder: the items it names in its order, the others after them as they were
  const rank = new Map<string, number>();
  for (const [i, o] of order.entries()) rank.set(canonical(isObj(o) ? o[key] : o), i);
  return merged
    .map((x, i) => ({ x, i, r: rank.get(canonical(isObj(x) ? x[key] : x)) ?? Number.POSITIVE_INFINITY }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((e) => e.x);
}
