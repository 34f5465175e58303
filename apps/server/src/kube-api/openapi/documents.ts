/**
 * The OpenAPI documents of the core v1 group as this server serves it: v2 (`/openapi/v2`, one Swagger 2.0
 * document) and v3 (`/openapi/v3/api/v1`, one OpenAPI 3.0 document), with the paths and operations routes of
 * this folder answer and the definitions of definitions.ts. Each operation carries what kubectl reads:
 * `x-kubernetes-action`, the `x-kubernetes-group-version-kind` of its object, and its query parameters (a
 * PATCH that lists `fieldValidation` tells kubectl 1.27+ to leave validation to the server). Pure; built once.
 */
import { type GroupVersionKind, openApiDefinitions } from './definitions.ts';

type Json = Record<string, unknown>;
type Verb = 'list' | 'get' | 'post' | 'put' | 'patch' | 'delete' | 'watchlist';
type Param = [name: string, type: 'string' | 'integer' | 'boolean'];

const LIST_PARAMS: Param[] = [
  ['allowWatchBookmarks', 'boolean'],
  ['continue', 'string'],
  ['fieldSelector', 'string'],
  ['labelSelector', 'string'],
  ['limit', 'integer'],
  ['resourceVersion', 'string'],
  ['resourceVersionMatch', 'string'],
  ['timeoutSeconds', 'integer'],
  ['watch', 'boolean'],
];
const WRITE_PARAMS: Param[] = [
  ['dryRun', 'string'],
  ['fieldManager', 'string'],
  ['fieldValidation', 'string'],
];
const PARAMS: Record<Verb, Param[]> = {
  list: LIST_PARAMS,
  watchlist: LIST_PARAMS,
  get: [],
  post: WRITE_PARAMS,
  put: WRITE_PARAMS,
  patch: [...WRITE_PARAMS, ['force', 'boolean']],
  delete: [
    ['dryRun', 'string'],
    ['gracePeriodSeconds', 'integer'],
    ['propagationPolicy', 'string'],
  ],
};
const METHOD: Record<Verb, string> = {
  list: 'get',
  watchlist: 'get',
  get: 'get',
  post: 'post',
  put: 'put',
  patch: 'patch',
  delete: 'delete',
};
const OPERATION: Record<Verb, string> = {
  list: 'list',
  watchlist: 'watch',
  get: 'read',
  post: 'create',
  put: 'replace',
  patch: 'patch',
  delete: 'delete',
};

interface Resource {
  kind: string;
  namespaced: boolean;
  /** Verbs on the collection and on one object. */
  collection: Verb[];
  item: Verb[];
}

const RESOURCES: Record<string, Resource> = {
  pods: {
    kind: 'Pod',
    namespaced: true,
    collection: ['list', 'post'],
    item: ['get', 'put', 'patch', 'delete'],
  },
  events: { kind: 'Event', namespaced: true, collection: ['list'], item: ['get'] },
  nodes: { kind: 'Node', namespaced: false, collection: ['list'], item: ['get'] },
  namespaces: {
    kind: 'Namespace',
    namespaced: false,
    collection: ['list', 'post'],
    item: ['get', 'put', 'patch', 'delete'],
  },
};

const CORE = 'io.k8s.api.core.v1.';
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

interface Flavour {
  prefix: string;
  param(p: Param): Json;
  body(schema: Json): Json;
  response(schema: Json): Json;
}

const V2: Flavour = {
  prefix: '#/definitions/',
  param: ([name, type]) => ({ name, in: 'query', type, uniqueItems: true }),
  body: (schema) => ({ parameters: [{ name: 'body', in: 'body', required: true, schema }] }),
  response: (schema) => ({ description: 'OK', schema }),
};

const V3: Flavour = {
  prefix: '#/components/schemas/',
  param: ([name, type]) => ({ name, in: 'query', schema: { type, uniqueItems: true } }),
  body: (schema) => ({ requestBody: { content: { '*/*': { schema } }, required: true } }),
  response: (schema) => ({ description: 'OK', content: { 'application/json': { schema } } }),
};

function operation(f: Flavour, r: Resource, verb: Verb, path: Param[]): Json {
  const isList = verb === 'list' || verb === 'watchlist';
  const object = verb === 'delete' ? `${CORE}${r.kind}` : `${CORE}${r.kind}${isList ? 'List' : ''}`;
  const ref = (name: string) => ({ $ref: `${f.prefix}${name}` });
  const answer = verb === 'watchlist' ? ref(`${META}WatchEvent`) : ref(object);
  const kind: GroupVersionKind = { group: '', version: 'v1', kind: r.kind };
  const scope = r.namespaced && path.some(([n]) => n === 'namespace') ? 'Namespaced' : '';
  const all = r.namespaced && !scope && isList ? 'ForAllNamespaces' : '';
  const body =
    verb === 'post' || verb === 'put'
      ? f.body(ref(`${CORE}${r.kind}`))
      : verb === 'patch'
        ? f.body({ type: 'object' })
        : verb === 'delete'
          ? f.body(ref(`${META}DeleteOptions`))
          : {};
  const bodyParams = (body.parameters as Json[] | undefined) ?? [];
  const { parameters: _p, ...restBody } = body;
  return {
    operationId: `${OPERATION[verb]}CoreV1${scope}${r.kind}${all}`,
    tags: ['core_v1'],
    parameters: [
      ...path.map(([name]) => ({
        name,
        in: 'path',
        required: true,
        ...(f === V2 ? { type: 'string' } : { schema: { type: 'string' } }),
      })),
      ...PARAMS[verb].map(f.param),
      ...bodyParams,
    ],
    ...restBody,
    responses: { '200': f.response(answer), ...(verb === 'post' ? { '201': f.response(answer) } : {}) },
    'x-kubernetes-action': verb,
    'x-kubernetes-group-version-kind': kind,
  };
}

function paths(f: Flavour): Json {
  const out: Record<string, Json> = {};
  const add = (path: string, r: Resource, verbs: Verb[]) => {
    const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => [m[1], 'string'] as Param);
    const ops: Json = {};
    for (const v of verbs) ops[METHOD[v]] = operation(f, r, v, params);
    out[path] = ops;
  };
  for (const [plural, r] of Object.entries(RESOURCES)) {
    const base = r.namespaced ? `/api/v1/namespaces/{namespace}/${plural}` : `/api/v1/${plural}`;
    const item = `${base}/{name}`;
    add(base, r, r.collection);
    add(item, r, r.item);
    add(`/api/v1/watch${base.slice('/api/v1'.length)}`, r, ['watchlist']);
    if (r.namespaced) {
      add(`/api/v1/${plural}`, r, ['list']);
      add(`/api/v1/watch/${plural}`, r, ['watchlist']);
    }
  }
  return out;
}

const INFO = { title: 'Kubernetes', version: 'v1.32.10' };

let v2: Json | undefined;
let v3: Json | undefined;

/** The Swagger 2.0 document of core v1. */
export function openApiV2(): Json {
  v2 ??= {
    swagger: '2.0',
    info: INFO,
    paths: paths(V2),
    definitions: openApiDefinitions(V2.prefix),
  };
  return v2;
}

/** The OpenAPI 3.0 document of core v1 (`/openapi/v3/api/v1`). */
export function openApiV3(): Json {
  v3 ??= {
    openapi: '3.0.0',
    info: INFO,
    paths: paths(V3),
    components: { schemas: openApiDefinitions(V3.prefix) },
  };
  return v3;
}
