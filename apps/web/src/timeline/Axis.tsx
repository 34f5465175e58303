/**
 * The time axis along the top of a timeline: d3's axis drawn into a <g> the component owns, its labels
 * HH:MM:SS with the fractional digits the tick spacing needs (./axis-format.ts), so none repeats.
 */
import { axisTop, type ScaleTime, select } from 'd3';
import { useEffect, useRef } from 'react';
import { tickLabels } from './axis-format.ts';

export function Axis({ scale, y, ticks }: { scale: ScaleTime<number, number>; y: number; ticks: number }) {
  const ref = useRef<SVGGElement>(null);
  useEffect(() => {
    if (!ref.current) return;
    const values = scale.ticks(ticks);
    const printed = tickLabels(values.map(Number));
    const labels = new Map(values.map((d, i) => [+d, printed[i] ?? '']));
    const axis = axisTop<Date>(scale)
      .tickValues(values)
      .tickSizeOuter(0)
      .tickFormat((d) => labels.get(+d) ?? '');
    select(ref.current).call(axis);
  }, [scale, ticks]);
  return <g ref={ref} className="tl-axis" data-testid="timeline-axis" transform={`translate(0,${y})`} />;
}
