/** The tooltip of what lies under the pointer: its first line as a heading, kept inside the timeline. */
import type { PlotHit } from './use-plot-pointer.ts';

export function Tooltip({ hover, width }: { hover: PlotHit; width: number }) {
  return (
    <div
      className="tl-tooltip"
      data-testid="timeline-tooltip"
      style={{ left: Math.min(hover.px + 12, width - 260), top: hover.py + 14 }}
    >
      {hover.lines.map((l, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a fixed list of lines, never reordered
        <div key={i} className={i === 0 ? 'tl-tooltip-head' : undefined}>
          {l}
        </div>
      ))}
    </div>
  );
}
