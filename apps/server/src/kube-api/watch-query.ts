/**
 * The watch query of every watched list (pods: watch-routes.ts; events, nodes, namespaces: object-watch.ts),
 * read through the routes' TypeBox schema machinery (routes/params.ts).
 */
import { Type } from '@sinclair/typebox';
import { BoolQuery, compileQuery, IntQuery, StringQuery, TextQuery } from '../routes/params.ts';

/** `watch` alone: a request without it is a list, whatever its other parameters say. */
export const readWatchFlag = compileQuery(Type.Object({ watch: BoolQuery() }));

/** The watch query (the selectors are read by the caller); resourceVersion "" or "0" is "from now". */
export const readWatchQuery = compileQuery(
  Type.Object({
    resourceVersion: StringQuery(/^(\d{1,16})?$/, 'must be a resource version'),
    timeoutSeconds: IntQuery(),
    allowWatchBookmarks: BoolQuery(),
    labelSelector: TextQuery(),
    fieldSelector: TextQuery(),
    includeObject: TextQuery(),
  }),
);
