/**
 * Kubernetes Events of the engine (the kubelet's recorder: Pulling, Started, BackOff, Killing, …):
 *   GET /api/v1/events                          EventList of every namespace (what the web app reads)
 *   GET /api/v1/namespaces/:ns/events           EventList
 *   GET /api/v1/namespaces/:ns/events/:name     Event, or 404
 * `kubectl describe pod` finds a pod's events with fieldSelector involvedObject.name/namespace/uid; every
 * field the API server lets events be selected by is served. Each Event carries its resourceVersion
 * (resource-version.ts) and the reporting component and instance the kubelet sets.
 * `?watch=` on the lists (and /api/v1/watch/events, /api/v1/watch/namespaces/:ns/events[/:name]) streams
 * each Event as the recorder counts it (object-watch.ts): ADDED at its first count, MODIFIED after.
 */
import type { Event } from '@syncscope/core/api';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { READ_ROUTE } from '../access.ts';
import { sendStatus } from '../status.ts';
import type { ListQuery } from './list-options.ts';
import { serveWatch } from './object-watch.ts';
import { eventKey, type ResourceVersions } from './resource-version.ts';
import { type ListSpec, notFoundOf, sendList, sendObject } from './respond.ts';
import { eventPrinter } from './table/events.ts';

const EVENT_FIELDS = [
  'metadata.name',
  'metadata.namespace',
  'involvedObject.kind',
  'involvedObject.namespace',
  'involvedObject.name',
  'involvedObject.uid',
  'involvedObject.apiVersion',
  'involvedObject.resourceVersion',
  'involvedObject.fieldPath',
  'reason',
  'reportingComponent',
  'source',
  'type',
] as const;

type KubeEvent = Event & { reportingComponent?: string; reportingInstance?: string };

function eventField(ev: KubeEvent, field: string): string {
  const o = ev.involvedObject as Event['involvedObject'] & { apiVersion?: string; resourceVersion?: string };
  switch (field) {
    case 'metadata.name':
      return ev.metadata.name;
    case 'metadata.namespace':
      return ev.metadata.namespace ?? '';
    case 'involvedObject.kind':
      return o.kind ?? '';
    case 'involvedObject.namespace':
      return o.namespace ?? '';
    case 'involvedObject.name':
      return o.name ?? '';
    case 'involvedObject.uid':
      return o.uid ?? '';
    case 'involvedObject.apiVersion':
      return o.apiVersion ?? '';
    case 'involvedObject.resourceVersion':
      return o.resourceVersion ?? '';
    case 'involvedObject.fieldPath':
      return o.fieldPath ?? '';
    case 'reason':
      return ev.reason;
    case 'reportingComponent':
      return ev.reportingComponent ?? '';
    case 'source':
      return ev.source?.component ?? '';
    case 'type':
      return ev.type;
    default:
      return '';
  }
}

const EVENT_LIST: ListSpec<KubeEvent> = {
  listKind: 'EventList',
  printer: eventPrinter,
  fieldLabels: EVENT_FIELDS,
  fieldOf: eventField,
};

/** The event as the API serves it. */
function kubeEvent(ev: Event, versions: ResourceVersions): KubeEvent {
  const o = ev.involvedObject;
  const rv = versions.event(eventKey(o.uid ?? '', o.fieldPath, ev.type, ev.reason, ev.message));
  return {
    ...ev,
    metadata: { ...ev.metadata, resourceVersion: rv },
    involvedObject: { apiVersion: 'v1', ...o } as Event['involvedObject'],
    reportingComponent: ev.source?.component ?? '',
    reportingInstance: ev.source?.host ?? '',
  };
}

async function eventRoutes(app: FastifyInstance): Promise<void> {
  const { engine, clock } = app.syncscope;
  const { versions } = app.kubeApi;
  const events = (ns?: string) =>
    engine
      .getEvents()
      .filter((e) => !ns || e.metadata.namespace === ns)
      .map((e) => kubeEvent(e, versions));

  serveWatch(
    app,
    {
      kind: 'Event',
      spec: EVENT_LIST,
      urls: ['/api/v1/events', '/api/v1/namespaces/:ns/events'],
      legacyUrls: [
        '/api/v1/watch/events',
        '/api/v1/watch/namespaces/:ns/events',
        '/api/v1/watch/namespaces/:ns/events/:name',
      ],
      list: () => events(),
      // the recorder keeps the Event it just counted last
      changes: (ev) => {
        if (ev.type !== 'k8s.event') return [];
        const counted = engine.getEvents().at(-1);
        if (!counted || counted.involvedObject.uid !== ev.podUID || counted.reason !== ev.reason) return [];
        return [{ type: counted.count > 1 ? 'MODIFIED' : 'ADDED', obj: kubeEvent(counted, versions) }];
      },
    },
    (l) => app.syncscope.trace.subscribe(l),
    () => clock.now(),
  );

  app.get<{ Querystring: ListQuery }>('/api/v1/events', READ_ROUTE, async (req, reply) =>
    sendList(req, reply, EVENT_LIST, events(), versions, clock.now()),
  );
  app.get<{ Params: { ns: string }; Querystring: ListQuery }>(
    '/api/v1/namespaces/:ns/events',
    READ_ROUTE,
    async (req, reply) => sendList(req, reply, EVENT_LIST, events(req.params.ns), versions, clock.now()),
  );
  app.get<{ Params: { ns: string; name: string }; Querystring: ListQuery }>(
    '/api/v1/namespaces/:ns/events/:name',
    READ_ROUTE,
    async (req, reply) => {
      const ev = events(req.params.ns).find((e) => e.metadata.name === req.params.name);
      if (!ev) return sendStatus(reply, notFoundOf('events', req.params.name));
      return sendObject(req, reply, eventPrinter, ev, clock.now());
    },
  );
}

export default fp(eventRoutes, { name: 'syncscope-kube-events', dependencies: ['syncscope-context'] });
