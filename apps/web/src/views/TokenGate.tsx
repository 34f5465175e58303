/**
 * Asks for the server's token when the server answers 401 (api/auth.ts marks it): a small form over the
 * page. The token is kept for this tab only and the page reloads, so every query and the trace stream start
 * again with it. The field is a password field and its value goes nowhere but sessionStorage.
 */
import { type FormEvent, useState, useSyncExternalStore } from 'react';
import { setToken, subscribeTokenState, tokenState } from '../api/auth.ts';

export function TokenGate({ reload = () => window.location.reload() }: { reload?: () => void }) {
  const state = useSyncExternalStore(subscribeTokenState, tokenState);
  const [value, setValue] = useState('');
  if (state === 'ok') return null;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const t = value.trim();
    if (t === '') return;
    setToken(t);
    reload();
  };

  return (
    <div className="token-gate" role="dialog" aria-modal="true" aria-labelledby="token-gate-title">
      <form className="panel" onSubmit={submit} data-testid="token-form">
        <h2 id="token-gate-title">This server needs its token</h2>
        <p className="hint" data-testid="token-state" data-state={state}>
          {state === 'refused'
            ? 'The server refused that token. Enter the one it was started with (SYNCSCOPE_TOKEN).'
            : 'Enter the token the server was started with (SYNCSCOPE_TOKEN). It is kept for this tab only.'}
        </p>
        <input
          type="password"
          name="token"
          autoComplete="off"
          aria-label="token"
          data-testid="token-input"
          value={value}
          onChange={(e) => setValue(e.target.value)}
        />{' '}
        <button type="submit" data-testid="token-submit" disabled={value.trim() === ''}>
          Use token
        </button>
      </form>
    </div>
  );
}
