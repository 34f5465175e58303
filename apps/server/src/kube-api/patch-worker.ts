/**
 * The worker side of PatchThread (patch-thread.ts): one PATCH's pure part off the server's event loop.
 * In: a PatchRequest; out, one answer per request: `{patched}`, what patchedPod returned (a pod or the
 * Status to answer), or `{error}`, the message of what it threw (a bug: the event loop would have thrown the
 * same). The thread then waits for the next request. Both ways, large parts the other side holds go as
 * references (SharedTrees, patch-thread.ts).
 */
import { parentPort } from 'node:worker_threads';
import type { Pod } from '@syncscope/core/api';
import { jsonEqual } from './patch.ts';
import { patchedPod } from './patch-pod.ts';
import { type PatchAnswer, type SharedRequest, SharedTrees } from './patch-thread.ts';

const port = parentPort;
if (!port) throw new Error('patch-worker runs as a worker thread');

// the large lists and objects of the last exchange, as the event loop holds them too
const shared = new SharedTrees(-1);

port.on('message', (sent: SharedRequest) => {
  let answer: PatchAnswer;
  try {
    const old = shared.decode(sent.old) as Pod;
    const patched = patchedPod({ ...sent, old });
    // what equals the pod it was given goes back as references to its parts
    answer = {
      patched: patched.ok ? { ...patched, pod: shared.encode(patched.pod, old, jsonEqual) as Pod } : patched,
    };
    shared.settle();
  } catch (e) {
    answer = { error: e instanceof Error ? e.message : String(e) };
    shared.reset();
  }
  port.postMessage(answer);
});
