/**
 * The log line(s) behind one step of a kubelet-log replay: the event's `origin.line`, read on demand from
 * the opened file or the server (lines.ts). A line the parser kept raw is marked so. Test id: `step-log`
 * (with `data-line`).
 */
import type { TraceEvent } from '@syncscope/core/trace';
import { useEffect, useState } from 'react';
import type { LineSource } from './lines.ts';

export function LogLines({ event, lines }: { event: TraceEvent; lines: LineSource }) {
  const n = event.origin?.line;
  const [text, setText] = useState<{ line: number; text: string | undefined } | null>(null);
  useEffect(() => {
    if (n === undefined) return;
    let live = true;
    lines.read(n).then(
      (t) => live && setText({ line: n, text: t }),
      () => live && setText({ line: n, text: undefined }),
    );
    return () => {
      live = false;
    };
  }, [n, lines]);
  if (n === undefined) return null;
  const shown = text?.line === n ? text.text : undefined;
  return (
    <div className="step-log" data-testid="step-log" data-line={n}>
      <span className="dim mono">
        line {n}
        {event.type === 'log.raw' ? ' · kept raw' : ''}
        {event.inferred ? ' · inferred from it' : ''}
      </span>
      <pre className="mono">{shown ?? (text?.line === n ? '(line not available)' : '…')}</pre>
    </div>
  );
}
