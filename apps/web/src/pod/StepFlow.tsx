/**
 * Cause and effect for the selected step, in words beside the flow arrows: for a PLEG event, config op or
 * worker update, what it woke (the update and the SyncPod run); for a SyncPod start or result, what woke
 * it. Test id: `step-flow`; buttons `flow-go-<seq>` select the step named.
 */
import type { WakeChain } from '../lib/causality.ts';
import { localClock } from '../lib/explain.ts';

function Go({ seq, onGo, children }: { seq: number | null; onGo: (seq: number) => void; children: string }) {
  if (seq === null) return <span>{children}</span>;
  return (
    <button type="button" className="linkish" onClick={() => onGo(seq)} data-testid={`flow-go-${seq}`}>
      {children}
    </button>
  );
}

export function StepFlow({
  chains,
  seq,
  onGo,
}: {
  chains: readonly WakeChain[];
  seq: number;
  onGo: (seq: number) => void;
}) {
  if (chains.length === 0) return null;
  const isRun = chains.some((c) => c.run && (c.run.startSeq === seq || c.run.resultSeq === seq));
  return (
    <div className="step-flow" data-testid="step-flow">
      {chains.map((c) => (
        <ChainLine key={c.update.seq} c={c} isRun={isRun} onGo={onGo} />
      ))}
    </div>
  );
}

function ChainLine({ c, isRun, onGo }: { c: WakeChain; isRun: boolean; onGo: (seq: number) => void }) {
  const run = c.run;
  const resync = c.cause.kind === 'resync';
  const cause = resync ? (
    <span>a resync (the sync loop's requeue)</span>
  ) : (
    <Go seq={c.cause.seq} onGo={onGo}>{`${c.cause.label} at ${localClock(c.cause.time)}`}</Go>
  );
  const update = (
    <Go seq={c.update.seq} onGo={onGo}>
      {`worker update ${c.update.updateType} at ${localClock(c.update.time)}`}
    </Go>
  );
  const runText = run ? (
    <Go seq={run.startSeq ?? run.resultSeq} onGo={onGo}>
      {`${run.workType} run at ${localClock(run.start)}${runLength(run)}`}
    </Go>
  ) : (
    <span>no run yet (waiting for the worker)</span>
  );
  if (isRun)
    return (
      <p>
        woken by {cause} → {update}
      </p>
    );
  return (
    <p>
      woke {!resync && <>{update} → </>}
      {runText}
      {resync && <> (a resync: no PLEG event or config op before it)</>}
    </p>
  );
}

/**
 * " (12 ms)", ", running", or ", no duration in the log" for a run known only by its result line (a kubelet
 * log's sync error: no start line, no duration).
 */
function runLength(run: { startSeq: number | null; start: number; end: number | null }): string {
  if (run.end === null) return ', running';
  if (run.startSeq === null && run.end === run.start) return ', no duration in the log';
  return ` (${Math.round(run.end - run.start)} ms)`;
}
