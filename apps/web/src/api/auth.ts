/**
 * The server's token, when it has one (SYNCSCOPE_TOKEN; required when it listens beyond loopback). Open the
 * dashboard once as `http://host:port/?token=<token>`: the token is kept for this tab (sessionStorage) and
 * removed from the address bar. Every API request then carries `Authorization: Bearer <token>`, the WebSocket
 * offers it as a subprotocol (browsers cannot set headers there), and download links carry `?token=`.
 */
const KEY = 'syncscope.token';
const WS_BEARER_PROTOCOL_PREFIX = 'base64url.bearer.authorization.k8s.io.';

let token: string | null = null;

/** Reads `?token=` from the page URL once at start-up. */
export function initToken(loc: Location = window.location, store: Storage = window.sessionStorage): void {
  const url = new URL(loc.href);
  const given = url.searchParams.get('token');
  if (given) {
    store.setItem(KEY, given);
    url.searchParams.delete('token');
    window.history.replaceState(null, '', url.pathname + url.search + url.hash);
  }
  token = store.getItem(KEY);
}

export function authHeaders(): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

export function wsProtocols(): string[] {
  return token ? [`${WS_BEARER_PROTOCOL_PREFIX}${base64url(token)}`] : [];
}

export function withTokenParam(path: string): string {
  return token ? `${path}${path.includes('?') ? '&' : '?'}token=${encodeURIComponent(token)}` : path;
}

/** fetch with the token's header added. */
export function authFetch(path: string, init?: RequestInit): Promise<Response> {
  return fetch(path, {
    ...init,
    headers: { ...authHeaders(), ...(init?.headers as Record<string, string>) },
  });
}

function base64url(s: string): string {
  const bytes = new TextEncoder().encode(s);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
