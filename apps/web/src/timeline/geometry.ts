/**
 * The timeline plot's geometry in px: the gutter of row labels left of the plot, the axis on top, then one
 * row per fixed row and container lane (hit.ts), each ROW_H tall.
 */
export const GUTTER = 150;
export const AXIS_H = 26;
export const ROW_H = 22;
export const PAD = 4;

/** Top of row `i` (module-level, so it keeps its identity across renders). */
export const rowY = (i: number) => AXIS_H + PAD + i * ROW_H;
/** Middle of row `i`, where the canvas draws point marks. */
export const rowMid = (i: number) => rowY(i) + ROW_H / 2;
