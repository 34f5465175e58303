/**
 * The pod page's "Run a command" panel, collapsed until opened: a container of the pod, a command line, and
 * Enter runs it once through the pod's exec subresource (../api/exec.ts), as `kubectl exec pod -c container
 * -- cmd` would. The line is split on whitespace, or run through `sh -c` when it has shell syntax; the panel
 * says which before it runs. Each run shows its stdout, its stderr apart, and its exit code, or the server's
 * reason it did not run (observe mode's refusal, a container that is not running); the newest few runs are
 * kept. Escape or Cancel closes a running command's socket.
 */
import type { Pod } from '@syncscope/core/api';
import { useEffect, useId, useRef, useState } from 'react';
import { commandArgv, type ExecEnd, STDERR_CHANNEL, startExec } from '../api/exec.ts';
import './exec.css';

/** Runs kept on screen, newest first. */
const KEPT_RUNS = 5;
/** Characters of output kept of each stream of a run; the rest is dropped and said so. */
const MAX_OUTPUT_CHARS = 64 * 1024;

interface Run {
  id: number;
  container: string;
  line: string;
  argv: readonly string[];
  stdout: string;
  stderr: string;
  truncated: boolean;
  end: ExecEnd | 'running' | 'cancelled';
}

const append = (kept: string, more: string) => (kept + more).slice(0, MAX_OUTPUT_CHARS);

export function ExecPanel({ pod }: { pod: Pod }) {
  const containers = pod.spec.containers.map((c) => c.name);
  const [container, setContainer] = useState(containers[0] ?? '');
  const [line, setLine] = useState('');
  const [runs, setRuns] = useState<Run[]>([]);
  const cancel = useRef<(() => void) | null>(null);
  const nextId = useRef(1);
  const ids = useId();
  const planned = commandArgv(line);
  const running = runs[0]?.end === 'running';

  // leaving the page ends the command it runs
  useEffect(() => () => cancel.current?.(), []);

  const update = (id: number, f: (r: Run) => Run) =>
    setRuns((all) => all.map((r) => (r.id === id ? f(r) : r)));

  const run = () => {
    if (running || planned.argv.length === 0 || container === '') return;
    const id = nextId.current++;
    const namespace = pod.metadata.namespace ?? 'default';
    const name = pod.metadata.name ?? '';
    const fresh: Run = {
      id,
      container,
      line: line.trim(),
      argv: planned.argv,
      stdout: '',
      stderr: '',
      truncated: false,
      end: 'running',
    };
    setRuns((all) => [fresh, ...all].slice(0, KEPT_RUNS));
    cancel.current = startExec(
      { namespace, name, container, argv: planned.argv },
      {
        output: (channel, text) =>
          update(id, (r) => {
            const key = channel === STDERR_CHANNEL ? 'stderr' : 'stdout';
            const next = append(r[key], text);
            return { ...r, [key]: next, truncated: r.truncated || next.length < r[key].length + text.length };
          }),
        end: (end) => {
          cancel.current = null;
          update(id, (r) => ({ ...r, end }));
        },
      },
    );
  };

  const stop = () => {
    const c = cancel.current;
    if (!c) return;
    cancel.current = null;
    c();
    setRuns((all) => all.map((r) => (r.end === 'running' ? { ...r, end: 'cancelled' } : r)));
  };

  return (
    <details className="panel exec-panel" data-testid="exec-panel">
      <summary>
        <h2>Run a command</h2>
      </summary>
      <form
        className="exec-form"
        onSubmit={(e) => {
          e.preventDefault();
          run();
        }}
      >
        <label htmlFor={`${ids}-container`}>container</label>
        <select
          id={`${ids}-container`}
          value={container}
          onChange={(e) => setContainer(e.target.value)}
          data-testid="exec-container"
        >
          {containers.map((c) => (
            <option key={c}>{c}</option>
          ))}
        </select>
        <label htmlFor={`${ids}-line`}>command</label>
        <input
          id={`${ids}-line`}
          className="mono"
          type="text"
          autoComplete="off"
          spellCheck={false}
          placeholder="cat /etc/hostname"
          value={line}
          onChange={(e) => setLine(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape' && running) {
              e.preventDefault();
              stop();
            }
          }}
          aria-describedby={`${ids}-how`}
          data-testid="exec-line"
        />
        {running ? (
          <button type="button" onClick={stop} data-testid="exec-cancel">
            Cancel
          </button>
        ) : (
          <button type="submit" disabled={planned.argv.length === 0} data-testid="exec-run">
            Run
          </button>
        )}
      </form>
      <p id={`${ids}-how`} className="sub" data-testid="exec-how">
        {planned.argv.length === 0
          ? 'Runs once, without a terminal or stdin, as kubectl exec does. Enter runs, Escape cancels.'
          : planned.viaShell
            ? `The line has shell syntax: it runs through sh -c in ${container}.`
            : `Split on spaces: runs ${JSON.stringify(planned.argv)} in ${container}.`}
      </p>
      <ol className="exec-runs" aria-label="runs, newest first" data-testid="exec-runs">
        {runs.map((r) => (
          <RunView key={r.id} run={r} />
        ))}
      </ol>
    </details>
  );
}

function EndView({ end }: { end: Run['end'] }) {
  if (end === 'running') return <span className="dim">running…</span>;
  if (end === 'cancelled') return <span className="dim">cancelled</span>;
  if ('message' in end)
    return (
      <span className="bad" data-testid="exec-error">
        {end.message}
      </span>
    );
  return (
    <span className={end.exitCode === 0 ? 'ok' : 'bad'} data-testid="exec-exit">
      exit code {end.exitCode}
    </span>
  );
}

function RunView({ run }: { run: Run }) {
  return (
    <li
      className="exec-run"
      data-testid="exec-run"
      data-run={run.id}
      data-state={typeof run.end === 'string' ? run.end : 'ended'}
    >
      <div className="exec-run-head">
        <span className="mono">$ {run.line}</span>
        <span className="tag">{run.container}</span>
        <span role="status">
          <EndView end={run.end} />
        </span>
      </div>
      {run.stdout !== '' && <Stream name="stdout" text={run.stdout} />}
      {run.stderr !== '' && <Stream name="stderr" text={run.stderr} />}
      {run.truncated && <p className="sub">output past {MAX_OUTPUT_CHARS / 1024} KiB per stream not shown</p>}
    </li>
  );
}

/** One stream's output, named, scrolled inside itself (so focusable: the keyboard scrolls it too). */
function Stream({ name, text }: { name: 'stdout' | 'stderr'; text: string }) {
  return (
    <div className="exec-stream">
      <span className="k" aria-hidden="true">
        {name}
      </span>
      <section
        className={name === 'stderr' ? 'exec-out exec-stderr' : 'exec-out'}
        aria-label={name}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
        tabIndex={0}
        data-testid={`exec-${name}`}
      >
        <pre>{text}</pre>
      </section>
    </div>
  );
}
