/**
 * "Open kubelet log…": a button in the top bar that opens the browser's file chooser (a real button, so Tab
 * reaches it and Enter or Space presses it), a drop anywhere on the page, and a log another part of the page
 * was given (requestLogOpen). The file is parsed in a worker (open.ts) while a progress bar shows the share
 * read; the result replaces whatever was shown (live or another replay) through `onReplay`. A shared import link (`#/imports/<id>`) opens the same way,
 * read from the server. Test ids: `open-log-button`, `open-log` (the file input), `log-drop-zone`,
 * `log-progress`, `log-error`.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ReplayStore } from '../lib/replay.ts';
import { logReplay, onLogOpenRequest, openAt, openKubeletLog } from './open.ts';
import { loadSharedImport } from './shared.ts';
import './kubelet-log.css';

/** Lets the browser paint before the next long step, so no frame carries two of them. */
const nextTask = () => new Promise<void>((r) => setTimeout(r, 0));

const IMPORT_ROUTE = /^#\/imports\/([A-Za-z0-9_-]+)$/;

export function LogOpener({ onReplay }: { onReplay: (store: ReplayStore) => void }) {
  const [progress, setProgress] = useState<{ name: string; fraction: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const busy = useRef(false);
  const picker = useRef<HTMLInputElement>(null);

  const run = useCallback(
    async (name: string, load: (p: (f: number) => void) => Promise<ReplayStore>) => {
      if (busy.current) return;
      busy.current = true;
      setError(null);
      setProgress({ name, fraction: 0 });
      try {
        const store = await load((fraction) => setProgress({ name, fraction }));
        if (store.trace.events.length === 0) throw new Error('no kubelet lines in this file');
        await nextTask();
        openAt('#/', store, onReplay);
      } catch (e) {
        setError(`${name}: ${(e as Error).message}`);
      } finally {
        busy.current = false;
        setProgress(null);
      }
    },
    [onReplay],
  );

  const open = useCallback(
    (file: File) =>
      run(file.name, async (p) => {
        const parsed = await openKubeletLog(file, p);
        await nextTask();
        return logReplay(file.name, {
          summary: parsed.summary,
          lines: parsed.lines,
          all: parsed.events,
          byNode: parsed.byNode,
          facts: parsed.facts,
          file,
        });
      }),
    [run],
  );

  // a log given to another part of the page (the trace panel's "replay a file")
  useEffect(() => onLogOpenRequest((file) => void open(file)), [open]);

  // a drop anywhere on the page
  useEffect(() => {
    const hasFiles = (e: DragEvent) => Boolean(e.dataTransfer?.types.includes('Files'));
    const over = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      setDragging(true);
    };
    const leave = (e: DragEvent) => {
      if (e.relatedTarget === null) setDragging(false);
    };
    const drop = (e: DragEvent) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      setDragging(false);
      const file = e.dataTransfer?.files[0];
      if (file) void open(file);
    };
    window.addEventListener('dragover', over);
    window.addEventListener('dragleave', leave);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragover', over);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('drop', drop);
    };
  }, [open]);

  // a shared link: #/imports/<id>
  useEffect(() => {
    const check = () => {
      const m = IMPORT_ROUTE.exec(window.location.hash);
      if (m?.[1]) void run(`import ${m[1]}`, (p) => loadSharedImport(m[1] as string, p));
    };
    check();
    window.addEventListener('hashchange', check);
    return () => window.removeEventListener('hashchange', check);
  }, [run]);

  return (
    <>
      <button
        type="button"
        className="small open-log"
        data-testid="open-log-button"
        title="or drop a log anywhere on the page"
        onClick={() => picker.current?.click()}
      >
        Open kubelet log…
      </button>
      <input
        ref={picker}
        type="file"
        hidden
        tabIndex={-1}
        aria-label="kubelet log file"
        data-testid="open-log"
        onChange={(e) => {
          const f = e.target.files?.[0];
          e.target.value = '';
          if (f) void open(f);
        }}
      />
      {dragging && (
        <div className="log-drop-zone" data-testid="log-drop-zone">
          Drop a kubelet log to open it
        </div>
      )}
      {progress && (
        <div
          className="log-progress"
          data-testid="log-progress"
          role="progressbar"
          aria-valuenow={Math.round(progress.fraction * 100)}
        >
          <span>reading {progress.name}</span>
          <progress max={1} value={progress.fraction} />
          <span className="mono">{Math.round(progress.fraction * 100)} %</span>
        </div>
      )}
      {error && (
        <div className="log-error bad" data-testid="log-error" role="alert">
          {error}{' '}
          <button
            type="button"
            className="small"
            data-testid="log-error-dismiss"
            onClick={() => setError(null)}
          >
            dismiss
          </button>
        </div>
      )}
    </>
  );
}
