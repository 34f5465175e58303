/**
 * The worker side of PatchThread (patch-thread.ts): one PATCH's pure part off the server's event loop.
 * In: a PatchRequest; out, one answer per request: `{patched}`, what patchedPod returned (a pod or the
 * Status to answer), or `{error}`, the message of what it threw (a bug: the event loop would have thrown the
 * same). The thread then waits for the next request.
 */
import { parentPort } from 'node:worker_threads';
import { type PatchRequest, patchedPod } from './patch-pod.ts';
import type { PatchAnswer } from './patch-thread.ts';

const port = parentPort;
if (!port) throw new Error('patch-worker runs as a worker thread');

port.on('message', (req: PatchRequest) => {
  let answer: PatchAnswer;
  try {
    answer = { patched: patchedPod(req) };
  } catch (e) {
    answer = { error: e instanceof Error ? e.message : String(e) };
  }
  port.postMessage(answer);
});
