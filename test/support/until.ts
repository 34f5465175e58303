/**
 * The one way the suites wait on state in another process (a server, a simulated node, kubectl, a file another
 * process writes), which sends no event to wait on: `check` is asked again every `everyMs` until it gives a
 * value other than undefined or false, and that value is returned. A check that throws counts as "not yet".
 * Waits on an engine in the test's own process use waitOnTrace (wait-trace.ts) instead.
 */
const WAIT_MS = 30_000;

export async function until<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = WAIT_MS,
  everyMs = 50,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const v = await Promise.resolve()
      .then(check)
      .catch(() => undefined);
    if (v !== undefined && v !== false) return v;
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
