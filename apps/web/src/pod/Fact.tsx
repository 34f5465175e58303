/**
 * One fact in a table cell or a summary's <dd>: kubectl's printed string when the pod is live, or a replay's
 * fact with its provenance (stated, inferred, unknown) as its class and title.
 */
import { type Cell, factClass } from '../lib/pod-facts.ts';

export function Fact({
  as: Tag,
  className,
  printed,
  cell,
  testid,
  liveTestid,
}: {
  as: 'td' | 'dd';
  className: string;
  printed: string;
  cell: Cell | undefined;
  /** the replay's fact's test id */
  testid: string;
  /** the live string's test id, if it has one */
  liveTestid?: string;
}) {
  if (!cell)
    return (
      <Tag className={className} data-testid={liveTestid}>
        {printed}
      </Tag>
    );
  return (
    <Tag
      className={`${className} ${factClass(cell.basis)}`}
      title={cell.title}
      data-basis={cell.basis}
      data-testid={testid}
    >
      {cell.text}
    </Tag>
  );
}
