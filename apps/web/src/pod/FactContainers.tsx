/**
 * A replay's containers table: each container as core's pod-state reducer worked it out from the trace (a
 * kubelet log's PLEG events, sync errors, back-off lines), each cell stated, inferred (italic, dotted, the
 * rule in its title) or unknown ("—", why in its title). A container the log names only by its ID is listed
 * by a short ID; it may be the pod's sandbox, which the log's PLEG lines do not tell apart.
 */
import { localClock } from '../lib/explain.ts';
import { type Cell, cell, factClass, stateWords } from '../lib/pod-facts.ts';
import type { ContainerSnapshot, PodSnapshot } from '../lib/pod-state-core.ts';
import { Columns } from './Columns.tsx';

function FactTd({ c, mono }: { c: Cell; mono?: boolean }) {
  return (
    <td className={`${mono ? 'mono ' : ''}${factClass(c.basis)}`} title={c.title} data-basis={c.basis}>
      {c.text}
    </td>
  );
}

function containerName(c: ContainerSnapshot): Cell {
  if (c.name.basis !== 'unknown') return cell(c.name, (n) => n);
  return {
    text: `${c.key.slice(0, 12)}…`,
    basis: 'unknown',
    title: `unknown name: ${c.name.why} (ID ${c.key})`,
  };
}

function timesOf(c: ContainerSnapshot): string {
  if (c.state.basis === 'unknown') return '';
  const v = c.state.value;
  const at = v.kind === 'terminated' ? v.finishedAt : v.kind === 'running' ? v.startedAt : undefined;
  return at === undefined ? '' : localClock(at);
}

export function FactContainers({ facts }: { facts: PodSnapshot }) {
  if (facts.containers.length === 0)
    return (
      <p
        className="sub fact-unknown"
        data-testid="containers-unknown"
        title="the trace shows no container of this pod"
      >
        The trace shows no container of this pod.
      </p>
    );
  return (
    <table className="containers" data-testid="fact-containers">
      <Columns names={['CONTAINER', 'STATE', 'SINCE', 'LAST STATE', 'READY', 'RESTARTS']} />
      <tbody>
        {facts.containers.map((c) => {
          const name = containerName(c);
          return (
            <tr key={c.key} data-testid={`container-${name.text}`}>
              <td className={`mono ${factClass(name.basis)}`} title={name.title} data-basis={name.basis}>
                {c.init && <span className="tag">init</span>}
                {name.text}
              </td>
              <FactTd c={cell(c.state, stateWords)} />
              <td className="mono dim">{timesOf(c)}</td>
              <FactTd c={cell(c.lastState, stateWords)} />
              <FactTd c={cell(c.ready, String)} />
              <FactTd c={cell(c.restartCount, (n) => (c.restartCount.atLeast ? `≥${n}` : String(n)))} mono />
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
