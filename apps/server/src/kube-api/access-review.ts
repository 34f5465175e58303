/**
 * What the caller may do, asked as `kubectl auth can-i` asks it (authorization.k8s.io/v1):
 *   POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews   one verb on one resource or path → 201,
 *        the review with `status.allowed` (and, when refused, `denied` and the reason)
 *   POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews    every rule in a namespace (`can-i --list`)
 * Whoever reaches a route here holds the token (or the server has none), and the token grants everything;
 * in observe mode the server changes nothing, so only the reads are allowed (get, list, watch; for a path,
 * get, head and options). A review is made, not stored: these POSTs change nothing, and their routes say so
 * (`changesNothing`) to the observe-mode write guard. A spec with both or neither of resourceAttributes and
 * nonResourceAttributes is a 422, as the apiserver's validation words it.
 */
import type { Status } from '@syncscope/core/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { READ_ROUTE } from '../access.ts';
import { badRequest, sendStatus, status } from '../status.ts';
import { protobufBodies, readObjectBody } from './kube-protobuf.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A POST that only answers (a review): not a write, though its method is. */
    changesNothing?: boolean;
  }
}

export const AUTHORIZATION_GROUP = 'authorization.k8s.io';
const GROUP_VERSION = `${AUTHORIZATION_GROUP}/v1`;
const BASE = `/apis/${GROUP_VERSION}`;

/** The resources of authorization.k8s.io/v1 this server serves, for discovery. */
export const AUTHORIZATION_RESOURCES = [
  {
    name: 'selfsubjectaccessreviews',
    singularName: 'selfsubjectaccessreview',
    namespaced: false,
    kind: 'SelfSubjectAccessReview',
    verbs: ['create'],
  },
  {
    name: 'selfsubjectrulesreviews',
    singularName: 'selfsubjectrulesreview',
    namespaced: false,
    kind: 'SelfSubjectRulesReview',
    verbs: ['create'],
  },
] as const;

/** Why a write is refused in observe mode (the words of the observe-mode write guard). */
const OBSERVE_REFUSAL = 'observe mode: this server does not change the node';

const RESOURCE_READS = new Set(['get', 'list', 'watch']);
const PATH_READS = new Set(['get', 'head', 'options']);

interface Attributes {
  verb?: unknown;
}

interface AccessDecision {
  allowed: boolean;
  denied?: true;
  reason?: string;
}

/**
 * The decision for a verb: everything is allowed, but in observe mode (`readOnly`) only the reads of a
 * resource (`resource` true) or of a path.
 */
function decide(verb: string, resource: boolean, readOnly: boolean): AccessDecision {
  if (!readOnly) return { allowed: true };
  if ((resource ? RESOURCE_READS : PATH_READS).has(verb)) return { allowed: true };
  return { allowed: false, denied: true, reason: OBSERVE_REFUSAL };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The review the request carries (JSON, YAML or protobuf), or the Status that refuses it. */
function reviewBody(
  req: FastifyRequest,
  kind: string,
): { body: Record<string, unknown> } | { error: Status } {
  const parsed = readObjectBody(req, kind);
  if (!parsed.ok) return { error: parsed.status };
  const body = parsed.value;
  if (!isObject(body) || (body.kind !== undefined && body.kind !== kind))
    return { error: badRequest(`the object provided is unrecognized (must be of type ${kind})`) };
  return { body };
}

/** ValidateSelfSubjectAccessReviewSpec: exactly one of the two kinds of attributes. */
function specError(spec: Record<string, unknown>): Status | undefined {
  const res = spec.resourceAttributes;
  const path = spec.nonResourceAttributes;
  const [field, value, why] =
    res != null && path != null
      ? [
          'spec.nonResourceAttributes',
          JSON.stringify(path),
          'cannot be specified in combination with resourceAttributes',
        ]
      : res == null && path == null
        ? [
            'spec.resourceAttributes',
            '"null"',
            'exactly one of nonResourceAttributes or resourceAttributes must be specified',
          ]
        : [];
  if (!field) return undefined;
  const message = `${field}: Invalid value: ${value}: ${why}`;
  return status(422, 'Invalid', `SelfSubjectAccessReview.${AUTHORIZATION_GROUP} "" is invalid: ${message}`, {
    kind: 'SelfSubjectAccessReview',
    causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: ${value}: ${why}`, field }],
  });
}

/** In a context of their own, where protobuf bodies are bytes (kube-protobuf.ts). */
async function accessReviewRoutes(app: FastifyInstance): Promise<void> {
  protobufBodies(app);
  const readOnly = () => app.syncscope.engine.nodeInfo().observing !== undefined;
  const route = { config: { ...READ_ROUTE.config, changesNothing: true } } as const;
  const answer = (reply: FastifyReply, kind: string, body: Record<string, unknown>, st: unknown) =>
    reply.code(201).send({
      kind,
      apiVersion: GROUP_VERSION,
      metadata: { ...(isObject(body.metadata) ? body.metadata : {}), creationTimestamp: null },
      spec: body.spec,
      status: st,
    });

  app.post(`${BASE}/selfsubjectaccessreviews`, route, async (req, reply) => {
    const got = reviewBody(req, 'SelfSubjectAccessReview');
    if ('error' in got) return sendStatus(reply, got.error);
    const { body } = got;
    const spec = isObject(body.spec) ? body.spec : {};
    const bad = specError(spec);
    if (bad) return sendStatus(reply, bad);
    const res = spec.resourceAttributes as Attributes | null | undefined;
    const attrs = (res ?? spec.nonResourceAttributes) as Attributes;
    const verb = typeof attrs.verb === 'string' ? attrs.verb : '';
    return answer(reply, 'SelfSubjectAccessReview', body, decide(verb, res != null, readOnly()));
  });

  app.post(`${BASE}/selfsubjectrulesreviews`, route, async (req, reply) => {
    const got = reviewBody(req, 'SelfSubjectRulesReview');
    if ('error' in got) return sendStatus(reply, got.error);
    const { body } = got;
    const ro = readOnly();
    return answer(reply, 'SelfSubjectRulesReview', body, {
      resourceRules: [{ verbs: ro ? [...RESOURCE_READS] : ['*'], apiGroups: ['*'], resources: ['*'] }],
      nonResourceRules: [{ verbs: ro ? [...PATH_READS] : ['*'], nonResourceURLs: ['*'] }],
      incomplete: false,
    });
  });
}

export default accessReviewRoutes;
