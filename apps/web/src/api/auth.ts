/**
 * The server's token, when it has one (SYNCSCOPE_TOKEN; required when it listens beyond loopback).
 *
 * The first request the server refuses with 401 marks the token as needed; TokenGate (views/TokenGate.tsx)
 * then asks for it once, keeps it for this tab (sessionStorage, gone when the tab closes) and reloads. From
 * then on every API request carries `Authorization: Bearer <token>`, the WebSocket offers it as the bearer
 * subprotocol (browsers cannot set headers there), and downloads go through fetch with the header into a
 * Blob. The token is never put in a URL (URLs end up in histories and server logs) and never logged.
 */
const KEY = 'syncscope.token';
const WS_BEARER_PROTOCOL_PREFIX = 'base64url.bearer.authorization.k8s.io.';

let token: string | null = null;
let storage: Storage | undefined;

/** What TokenGate shows: nothing, a request for the token, or word that the one given was refused. */
export type TokenState = 'ok' | 'needed' | 'refused';
let state: TokenState = 'ok';
const listeners = new Set<() => void>();

/** Reads the tab's token at start-up. Called once by the boot module (main.tsx) before anything is fetched. */
export function initToken(store: Storage = window.sessionStorage): void {
  storage = store;
  token = store.getItem(KEY);
}

/** Keeps the token for this tab; an empty string forgets it. */
export function setToken(value: string): void {
  token = value === '' ? null : value;
  if (token === null) storage?.removeItem(KEY);
  else storage?.setItem(KEY, token);
}

export function tokenState(): TokenState {
  return state;
}

/** For useSyncExternalStore: called when tokenState() changes. */
export function subscribeTokenState(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** A 401 from the server: ask for the token, or say the one given was refused. */
function refused(): void {
  const next: TokenState = token ? 'refused' : 'needed';
  if (state === next) return;
  state = next;
  for (const l of listeners) l();
}

function authHeaders(): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

export function wsProtocols(): string[] {
  return token ? [`${WS_BEARER_PROTOCOL_PREFIX}${base64url(token)}`] : [];
}

/** fetch with the token's header added; a 401 answer asks the user for the token. */
export async function authFetch(path: string, init?: RequestInit): Promise<Response> {
  const res = await fetch(path, {
    ...init,
    headers: { ...authHeaders(), ...(init?.headers as Record<string, string>) },
  });
  if (res.status === 401) refused();
  return res;
}

/**
 * Downloads `path` as the file `filename`: fetched with the token's header, saved from a Blob (a plain link
 * could not carry the header). Throws with the server's message when it refuses.
 */
export async function downloadWithToken(path: string, filename: string): Promise<void> {
  const res = await authFetch(path);
  if (!res.ok) {
    const text = await res.text();
    let message = `${res.status} ${res.statusText}`;
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? message;
    } catch {
      // not a Status: keep the HTTP line
    }
    throw new Error(message);
  }
  const url = URL.createObjectURL(await res.blob());
  try {
    const a = document.createElement('a');
    a.href = url;
    a.download = filename;
    a.rel = 'noopener';
    document.body.append(a);
    a.click();
    a.remove();
  } finally {
    // the click has handed the Blob to the download; the URL is not needed past this task
    setTimeout(() => URL.revokeObjectURL(url), 0);
  }
}

function base64url(s: string): string {
  const bytes = new TextEncoder().encode(s);
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
