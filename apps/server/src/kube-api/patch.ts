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
 * Pure functions: a patch that cannot be applied throws PatchError (the caller answers 422 or 400); nothing
 * is changed in place.
 */

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

export class PatchError extends Error {}

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

// ---- RFC 7386 ---------------------------------------------------------------------------------------

export function mergePatch(target: Json, patch: Json): Json {
  if (!isObj(patch)) return patch;
  const out: Obj = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k] ?? null, v);
  }
  return out;
}

// ---- RFC 6902 ---------------------------------------------------------------------------------------

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
  for (const t of tokens.slice(0, -1)) {
    const next = Array.isArray(cur) ? cur[Number(t)] : isObj(cur) ? cur[t] : undefined;
    if (next === undefined) throw new PatchError(`path /${tokens.join('/')} does not exist`);
    cur = next;
  }
  return [cur, tokens[tokens.length - 1] as string];
}

function get(doc: Json, tokens: string[]): Json {
  if (tokens.length === 0) return doc;
  const [parent, key] = parentOf(doc, tokens);
  const v = Array.isArray(parent) ? parent[Number(key)] : isObj(parent) ? parent[key] : undefined;
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

function add(doc: Json, tokens: string[], value: Json): Json {
  if (tokens.length === 0) return value;
  const [parent, key] = parentOf(doc, tokens);
  if (Array.isArray(parent)) parent.splice(index(parent, key, true), 0, value);
  else if (isObj(parent)) parent[key] = value;
  else throw new PatchError(`path /${tokens.join('/')} has no parent object`);
  return doc;
}

function remove(doc: Json, tokens: string[]): Json {
  get(doc, tokens);
  const [parent, key] = parentOf(doc, tokens);
  if (Array.isArray(parent)) parent.splice(index(parent, key, false), 1);
  else if (isObj(parent)) delete parent[key];
  return doc;
}

function equal(a: Json, b: Json): boolean {
  return canonical(a) === canonical(b);
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

export function jsonPatch(target: Json, patch: Json): Json {
  if (!Array.isArray(patch)) throw new PatchError('a JSON patch must be an array of operations');
  let doc: Json = structuredClone(target);
  for (const op of patch) {
    if (!isObj(op)) throw new PatchError('a JSON patch operation must be an object');
    const path = pointer(op.path);
    const value = op.value;
    switch (op.op) {
      case 'add':
        if (value === undefined) throw new PatchError('add operation does not apply: missing value');
        doc = add(doc, path, structuredClone(value));
        break;
      case 'remove':
        doc = remove(doc, path);
        break;
      case 'replace':
        if (value === undefined) throw new PatchError('replace operation does not apply: missing value');
        get(doc, path);
        doc = add(remove(doc, path), path, structuredClone(value));
        break;
      case 'move': {
        const from = pointer(op.from);
        const v = get(doc, from);
        doc = add(remove(doc, from), path, v);
        break;
      }
      case 'copy':
        doc = add(doc, path, structuredClone(get(doc, pointer(op.from))));
        break;
      case 'test':
        if (!equal(get(doc, path), value ?? null))
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
    const key = MERGE_KEYS[k];
    if (Array.isArray(v) && key !== undefined) {
      out[k] = mergeList(
        Array.isArray(out[k]) ? (out[k] as Json[]) : [],
        v,
        key,
        patch[`${ELEMENT_ORDER}${k}`],
      );
    } else out[k] = strategicMerge(out[k] ?? null, v);
  }
  return out;
}

function mergeList(target: Json[], patch: Json[], key: string, order: Json | undefined): Json[] {
  const out = [...target];
  const at = (k: Json) => out.findIndex((x) => isObj(x) && canonical(x[key]) === canonical(k));
  for (const item of patch) {
    if (!isObj(item)) throw new PatchError(`a list merged by ${key} must hold objects`);
    if (item.$patch === 'replace') return patch.filter((x) => !(isObj(x) && x.$patch === 'replace'));
    const k = item[key];
    if (k === undefined)
      throw new PatchError(`map: ${canonical(item)} does not contain declared merge key: ${key}`);
    const i = at(k);
    if (item.$patch === 'delete') {
      if (i >= 0) out.splice(i, 1);
      continue;
    }
    if (i >= 0) out[i] = strategicMerge(out[i] as Json, item) as Json;
    else out.push(strategicMerge(null, item) as Json);
  }
  if (!Array.isArray(order)) return out;
  // $setElementOrder: the items it names in its order, the others after them as they were
  const rank = new Map(order.map((o, i) => [canonical(isObj(o) ? o[key] : o), i]));
  const ranked = (x: Json) => rank.get(canonical(isObj(x) ? x[key] : x)) ?? Number.POSITIVE_INFINITY;
  return out
    .map((x, i) => ({ x, i }))
    .sort((a, b) => ranked(a.x) - ranked(b.x) || a.i - b.i)
    .map((e) => e.x);
}
