/** The time axis along the top of a timeline: d3's axis drawn into a <g> the component owns. */
import { axisTop, type ScaleTime, select } from 'd3';
import { useEffect, useRef } from 'react';

export function Axis({ scale, y, ticks }: { scale: ScaleTime<number, number>; y: number; ticks: number }) {
  const ref = useRef<SVGGElement>(null);
  useEffect(() => {
    if (ref.current) select(ref.current).call(axisTop<Date>(scale).ticks(ticks).tickSizeOuter(0));
  }, [scale, ticks]);
  return <g ref={ref} className="tl-axis" transform={`translate(0,${y})`} />;
}
