/**
 * Container logs: GET /api/v1/namespaces/:ns/pods/:name/log?container=&previous= as text, and a query hook
 * keyed by the container's restart count so a new run's logs are fetched when it changes.
 */
import { useQuery } from '@tanstack/react-query';
import { authFetch } from './auth.ts';
import { ApiError } from './client.ts';

async function getPodLog(
  namespace: string,
  name: string,
  opts: { container: string; previous?: boolean; tailLines?: number },
): Promise<string> {
  const q = new URLSearchParams({ container: opts.container });
  if (opts.previous) q.set('previous', 'true');
  if (opts.tailLines !== undefined) q.set('tailLines', String(opts.tailLines));
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(name)}/log?${q}`;
  const res = await authFetch(path);
  const text = await res.text();
  if (!res.ok) {
    let message = `${res.status} ${res.statusText}`;
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? message;
    } catch {
      // not a Status: keep the HTTP line
    }
    throw new ApiError(res.status, message);
  }
  return text;
}

export function usePodLog(
  namespace: string,
  name: string,
  container: string,
  previous: boolean,
  restartCount: number,
) {
  return useQuery({
    queryKey: ['logs', namespace, name, container, previous, restartCount],
    queryFn: () => getPodLog(namespace, name, { container, previous, tailLines: 200 }),
    retry: false,
    staleTime: 5_000,
  });
}
