/** Frame timing in a page: requestAnimationFrame deltas, collected in the page until the returned stop. */
import type { Page } from 'playwright-core';

/** rAF deltas collected in the page from now until `stop` is called. */
export async function startFrames(page: Page): Promise<() => Promise<number[]>> {
  // a string, not a function: tsx's helpers (__name) do not exist in the page
  await page.evaluate(`(() => {
    window.__frames = [];
    window.__framesOn = true;
    let last = 0;
    const tick = (t) => {
      window.__frames.push(t - last);
      last = t;
      if (window.__framesOn) requestAnimationFrame(tick);
    };
    requestAnimationFrame((t) => {
      last = t;
      requestAnimationFrame(tick);
    });
  })()`);
  return () => page.evaluate<number[]>('(() => { window.__framesOn = false; return window.__frames; })()');
}
