/**
 * The timeline's visible window and the pure arithmetic of zooming, panning and hit-testing it. The
 * Timeline component keeps a TimeWindow (or null for "the whole history, following live") and calls these
 * from wheel, drag, key and brush handlers.
 */

export interface TimeWindow {
  start: number;
  end: number;
}

/** The narrowest window a zoom may reach (ms). */
const MIN_SPAN_MS = 200;

/** Keeps `w` inside `bounds` (moving it, not shrinking, when it sticks out) and at least MIN_SPAN_MS wide. */
export function clampWindow(w: TimeWindow, bounds: TimeWindow): TimeWindow {
  const full = Math.max(bounds.end - bounds.start, MIN_SPAN_MS);
  const span = Math.min(Math.max(w.end - w.start, MIN_SPAN_MS), full);
  let start = w.start;
  if (start < bounds.start) start = bounds.start;
  if (start + span > bounds.start + full) start = bounds.start + full - span;
  return { start, end: start + span };
}

/**
 * Zooms by `factor` (< 1 zooms in) keeping the time under the pointer (`focus`) where it is. The factor is
 * first limited to what MIN_SPAN_MS and the bounds allow, so a zoom that hits a limit still keeps the focus
 * in place (only a zoom out that would stick out of the bounds moves it).
 */
export function zoomWindow(w: TimeWindow, focus: number, factor: number, bounds: TimeWindow): TimeWindow {
  const span = w.end - w.start;
  if (!(span > 0)) return clampWindow(w, bounds);
  const full = Math.max(bounds.end - bounds.start, MIN_SPAN_MS);
  const next = Math.min(Math.max(span * factor, Math.min(MIN_SPAN_MS, span)), full);
  const k = next / span;
  const f = Math.min(Math.max(focus, w.start), w.end);
  return clampWindow({ start: f - (f - w.start) * k, end: f + (w.end - f) * k }, bounds);
}

/**
 * The zoom factor of one wheel event: proportional to how far it scrolled (a trackpad sends many small
 * deltas, a mouse wheel a few large ones), so a gesture zooms smoothly. A pinch arrives as a wheel event
 * with ctrlKey set and small deltas; it zooms faster per pixel. `deltaMode` 1 counts lines, 2 pages.
 */
export function wheelZoomFactor(deltaY: number, deltaMode: number, pinch: boolean): number {
  const px = deltaY * (deltaMode === 1 ? 16 : deltaMode === 2 ? 400 : 1);
  const k = pinch ? 0.01 : 0.002;
  return Math.exp(Math.max(-1, Math.min(1, px * k)));
}

/** The time at pixel `px` of a plot that maps the window onto [left, right]. */
export function timeAt(w: TimeWindow, px: number, left: number, right: number): number {
  return w.start + ((px - left) / (right - left)) * (w.end - w.start);
}

/**
 * A zoom from the keyboard: around the selected step's time when it is on screen, so the step stays
 * where it is; around the centre otherwise. Null when zooming out reaches the whole history (the view
 * then follows live again).
 */
export function keyZoom(
  w: TimeWindow,
  selected: number | undefined,
  factor: number,
  bounds: TimeWindow,
): TimeWindow | null {
  const focus =
    selected !== undefined && selected >= w.start && selected <= w.end ? selected : (w.start + w.end) / 2;
  const z = zoomWindow(w, focus, factor, bounds);
  return factor > 1 && isWhole(z, bounds) ? null : z;
}

/** Moves the window by `fraction` of its span (negative: back in time). */
export function panWindow(w: TimeWindow, fraction: number, bounds: TimeWindow): TimeWindow {
  const d = (w.end - w.start) * fraction;
  return clampWindow({ start: w.start + d, end: w.end + d }, bounds);
}

/** Whether the window shows the whole history (then it follows the live end). */
function isWhole(w: TimeWindow, bounds: TimeWindow): boolean {
  return w.start <= bounds.start && w.end >= bounds.end;
}

/** The window that centres `time`, keeping the span, unless `time` is already visible. */
export function revealTime(w: TimeWindow, time: number, bounds: TimeWindow): TimeWindow {
  if (time >= w.start && time <= w.end) return w;
  const half = (w.end - w.start) / 2;
  return clampWindow({ start: time - half, end: time + half }, bounds);
}

/**
 * The mark nearest to `time` among `marks` sorted by time, if within `toleranceMs`. Binary search, so a
 * pointer move over a canvas of many marks stays cheap.
 */
export function nearestMark<T extends { time: number }>(
  marks: readonly T[],
  time: number,
  toleranceMs: number,
): T | undefined {
  let lo = 0;
  let hi = marks.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((marks[mid] as T).time < time) lo = mid + 1;
    else hi = mid;
  }
  let best: T | undefined;
  for (const i of [lo - 1, lo]) {
    const m = marks[i];
    if (
      m &&
      Math.abs(m.time - time) <= toleranceMs &&
      (!best || Math.abs(m.time - time) < Math.abs(best.time - time))
    )
      best = m;
  }
  return best;
}

/** The first interval containing `time` (intervals as [start, end]). */
export function intervalAt<T extends { start: number; end: number }>(
  items: readonly T[],
  time: number,
  slackMs = 0,
): T | undefined {
  return items.find((it) => time >= it.start - slackMs && time <= it.end + slackMs);
}
