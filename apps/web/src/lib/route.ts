/**
 * Hash routes: `#/` is the node, `#/pods/<namespace>/<name>` one pod, `#/nodes` the nodes of a kubelet log and
 * their pods in trouble. Hash routing keeps the built app a
 * set of static files the server can serve from any path.
 */
export type Route = { view: 'node' } | { view: 'nodes' } | { view: 'pod'; namespace: string; name: string };

export function parseRoute(hash: string): Route {
  // a query after the path (`?step=`, see step-route.ts) is not part of the route
  const path = hash.replace(/^#\/?/, '').split('?')[0] ?? '';
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts.length === 3 && parts[0] === 'pods') {
    return { view: 'pod', namespace: parts[1] as string, name: parts[2] as string };
  }
  if (parts.length === 1 && parts[0] === 'nodes') return { view: 'nodes' };
  return { view: 'node' };
}

export function routeHref(route: Route): string {
  if (route.view === 'pod') {
    return `#/pods/${encodeURIComponent(route.namespace)}/${encodeURIComponent(route.name)}`;
  }
  if (route.view === 'nodes') return '#/nodes';
  return '#/';
}
