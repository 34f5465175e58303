/** The time axis along the top of a timeline: d3's axis drawn into a <g> the component owns. */
import { axisTop, type ScaleTime, select } from 'd3';
import { useEffect, useRef } from 'react';

export function Axis({
  scale,
  y,
  ticks,
  format,
}: {
  scale: ScaleTime<number, number>;
  y: number;
  ticks: number;
  /** Tick labels (HH:MM:SS of the engine clock); d3's multi-scale format when absent. */
  format?: (d: Date) => string;
}) {
  const ref = useRef<SVGGElement>(null);
  useEffect(() => {
    if (!ref.current) return;
    const axis = axisTop<Date>(scale).ticks(ticks).tickSizeOuter(0);
    if (format) axis.tickFormat((d) => format(d));
    select(ref.current).call(axis);
  }, [scale, ticks, format]);
  return <g ref={ref} className="tl-axis" transform={`translate(0,${y})`} />;
}
