/**
 * One pod in trouble on the nodes page (./FleetView.tsx): its node, namespace, name, STATUS and RESTARTS with
 * their provenance, its steps that differ from the model's reading (`cell-differs`, the number in
 * `data-differs`), its troubles in the kubelet's words and when it was last seen, counted back from the log's
 * end. The row opens the pod on its node.
 */
import { humanDuration } from '@syncscope/core/api';
import type { ExplainCounts } from '@syncscope/core/explain';
import { countsWords } from '../explain/log-counts.ts';
import { type FleetNode, namedByWords, type TroublePod } from '../lib/fleet.ts';
import { factClass } from '../lib/pod-facts.ts';
import { provenance } from '../lib/pod-state-core.ts';
import { clockText } from '../node/liveness.ts';
import { statusTone } from '../node/status-tone.ts';

/** a trouble's words are cut after this many characters (a sync error can be a paragraph); its title has all */
const WORDS_SHOWN = 120;

/** "3m12s before the log's end", or "at the log's end" */
export function beforeEnd(t: number, end: number): string {
  return end - t < 1000 ? "at the log's end" : `${humanDuration(end - t)} before the log's end`;
}

export function NodeName({ n }: { n: FleetNode }) {
  return (
    <span title={namedByWords(n)} data-named-by={n.namedBy}>
      {n.name}
      {n.namedBy === 'line' && <span className="dim"> ({n.key})</span>}
    </span>
  );
}

export function TroubleRow({
  t,
  end,
  counts,
  onOpen,
}: {
  t: TroublePod;
  /** the log's last line */
  end: number;
  /** the pod's explanation counts; null: no step of it was read; undefined: not explained */
  counts: ExplainCounts | null | undefined;
  onOpen: (t: TroublePod) => void;
}) {
  const s = t.pod;
  const slash = s.pod.indexOf('/');
  const word = s.statusWord.basis === 'unknown' ? '—' : s.statusWord.value;
  const restarts =
    s.restarts.basis === 'unknown' ? '—' : `${s.restarts.atLeast ? '≥' : ''}${s.restarts.value}`;
  return (
    <tr className="clickable" data-testid={`trouble-row-${t.node.key}/${s.pod}`} onClick={() => onOpen(t)}>
      <td>
        <div className="clip">
          <NodeName n={t.node} />
        </div>
      </td>
      <td>
        <div className="clip" title={s.pod.slice(0, slash)}>
          {s.pod.slice(0, slash)}
        </div>
      </td>
      <td className="pod-name">
        <div className="clip" title={s.pod}>
          {s.pod.slice(slash + 1)}
        </div>
      </td>
      <td
        className={`status status-${statusTone(word)} ${factClass(s.statusWord.basis)}`}
        title={provenance(s.statusWord)}
        data-basis={s.statusWord.basis}
      >
        {word}
      </td>
      <td className={`num ${factClass(s.restarts.basis)}`} title={provenance(s.restarts)}>
        {restarts}
      </td>
      <td
        className={`num${counts && counts.differs > 0 ? ' bad' : ''}`}
        title={counts ? countsWords(counts) : 'no step of this pod was read'}
        data-testid="cell-differs"
        data-differs={counts?.differs ?? ''}
      >
        {counts ? counts.differs : '—'}
      </td>
      <td className="trouble-words">
        {t.troubles.map((x) => (
          <span
            key={`${x.kind}-${x.words}`}
            className={`trouble trouble-${x.kind}`}
            title={`${x.words}\nsince ${clockText(x.since)}${x.from?.line !== undefined ? `, line ${x.from.line}` : ''}`}
          >
            {x.words.length > WORDS_SHOWN ? `${x.words.slice(0, WORDS_SHOWN)}…` : x.words}
          </span>
        ))}
      </td>
      <td className="last-seen" title={clockText(s.lastSeen)}>
        {beforeEnd(s.lastSeen, end)}
      </td>
    </tr>
  );
}
