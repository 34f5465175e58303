/** The first facts of a back-off window, live or replayed: which container, and its status word. */
export function BackoffHead({ container, statusWord }: { container: string; statusWord: string }) {
  return (
    <>
      <dt>container</dt>
      <dd className="mono">{container}</dd>
      <dt>status</dt>
      <dd className="mono bad" data-testid="backoff-status">
        {statusWord}
      </dd>
    </>
  );
}
