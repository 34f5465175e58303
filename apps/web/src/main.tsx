/**
 * The boot module, the only script index.html loads: reads the tab's token, asks for the app (root.tsx,
 * its own chunk), and sends the first page's requests (api/first-requests.ts) as soon as the app's code
 * has arrived, so the server computes the pods list while the browser evaluates and renders the app.
 * Sent any earlier, the list (hundreds of milliseconds of the server's time at 5,000 pods) would hold up
 * the app's own download on the same server; sent from the app's first render, it would wait for it.
 * root.tsx sends them itself if its code runs before this module sees it arrive. A load that opens on a pod's
 * page sends them at once instead (that pod's row and the node, answered in a moment however busy the
 * server), so the header's data comes with the app's code rather than a round trip after it, and asks for
 * that page's own chunk (PodView) beside the app's, so both download and compile together.
 */
import { initToken } from './api/auth.ts';
import { startFirstRequests } from './api/first-requests.ts';
import { parseRoute } from './lib/route.ts';

initToken();

/** Calls `then` once a script of the app's chunk (named root-<hash>.js by the build) has been received. */
function whenAppArrives(then: () => void): void {
  if (typeof PerformanceObserver === 'undefined') return;
  const observer = new PerformanceObserver((list) => {
    if (list.getEntries().some((e) => /\/root-[^/]*\.js$/.test(e.name))) {
      observer.disconnect();
      then();
    }
  });
  // buffered: the app's chunk may already be in (index.html preloads it beside this module)
  observer.observe({ type: 'resource', buffered: true });
}

const onPod = parseRoute(window.location.hash).view === 'pod';
if (onPod) startFirstRequests();
else whenAppArrives(startFirstRequests);
void import('./root.tsx');
if (onPod) void import('./views/PodView.tsx').catch(() => undefined);
