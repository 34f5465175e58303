import { describe, expect, it } from 'vitest';
import { parseRoute, routeHref } from './route.ts';

describe('pod routes', () => {
  it('round-trips the longest valid pod name, with a step query after it', () => {
    const name = `a.${'b'.repeat(249)}-c`;
    expect(name.length).toBe(253);
    const href = routeHref({ view: 'pod', namespace: 'kube-system', name });
    expect(href).toBe(`#/pods/kube-system/${name}`);
    expect(parseRoute(href)).toEqual({ view: 'pod', namespace: 'kube-system', name });
    expect(parseRoute(`${href}?step=42`)).toEqual({ view: 'pod', namespace: 'kube-system', name });
  });
});
