/**
 * The trace: its newest events on demand (TraceTail: fetched when asked, paged older, never streamed), a
 * link to the node's NDJSON export (each pod row has its own), and a
 * file input that reads an export back, checks every line, and starts a replay of it in the same views.
 * A file with a bad line is refused and the line numbers are listed. A kubelet log given there (told by its
 * first lines: replay/file-kind.ts) is opened as one, by the top bar's log opener. The readers (the trace's
 * checks, the log's recognisers, the replay's reducer) are fetched when a file is given, so the node page's
 * first load carries none of them.
 */
import { useState } from 'react';
import { downloadTraceExport, traceExportUrl } from '../api/node-actions.ts';
import type { ReplayStore } from '../lib/replay.ts';
import { useReplay } from '../replay/context.ts';
import { TraceTail } from './TraceTail.tsx';

export function TracePanel({ onReplay }: { onReplay: (store: ReplayStore) => void }) {
  const replay = useReplay();
  const [exportError, setExportError] = useState<string | null>(null);
  const [errors, setErrors] = useState<{
    file: string;
    list: { line: number; text: string }[];
    truncated: boolean;
  } | null>(null);

  const load = async (file: File) => {
    const [{ fileKind }, { requestLogOpen }, { formatNdjsonError, parseTraceNdjson }, { buildReplay }] =
      await Promise.all([
        import('../replay/file-kind.ts'),
        import('../kubelet-log/open.ts'),
        import('../lib/ndjson.ts'),
        import('../lib/replay.ts'),
      ]);
    // a kubelet log goes to the log opener, which reads it as one (its progress, its errors)
    if ((await fileKind(file)) === 'kubelet-log' && requestLogOpen(file)) {
      setErrors(null);
      return;
    }
    const parsed = parseTraceNdjson(await file.text());
    if (parsed.errors.length > 0) {
      setErrors({
        file: file.name,
        list: parsed.errors.map((e) => ({ line: e.line, text: formatNdjsonError(e) })),
        truncated: parsed.truncated,
      });
      return;
    }
    if (parsed.events.length === 0) {
      setErrors({
        file: file.name,
        list: [{ line: 1, text: formatNdjsonError({ line: 1, message: 'the file holds no events' }) }],
        truncated: false,
      });
      return;
    }
    setErrors(null);
    onReplay(buildReplay(parsed.events, file.name));
  };

  return (
    <section className="panel traces">
      <h2>Trace</h2>
      <TraceTail />
      <div className="toolbar">
        {!replay && (
          <a
            className="button"
            href={traceExportUrl()}
            download="syncscope-trace.ndjson"
            data-testid="export-node"
            onClick={(e) => {
              // fetched with the token's header and saved from a Blob: a link cannot carry the header
              e.preventDefault();
              setExportError(null);
              downloadTraceExport('syncscope-trace.ndjson').catch((err: Error) =>
                setExportError(`export failed: ${err.message}`),
              );
            }}
          >
            Export node trace (NDJSON)
          </a>
        )}
        <label className="field">
          <span className="k">replay a file</span>
          <input
            type="file"
            accept=".ndjson,.jsonl,.json,.log,.txt,.gz,application/x-ndjson,text/plain"
            data-testid="import-file"
            onChange={(e) => {
              const f = e.target.files?.[0];
              e.target.value = '';
              if (f) void load(f);
            }}
          />
        </label>
      </div>
      {exportError && (
        <div className="bad" data-testid="export-error" role="alert">
          {exportError}
        </div>
      )}
      {errors && (
        <div className="apply-error" data-testid="import-error" role="alert">
          <div className="bad">{errors.file} is not a Syncscope trace:</div>
          <ul>
            {errors.list.map((e) => (
              <li key={e.line} className="mono">
                {e.text}
              </li>
            ))}
            {errors.truncated && <li>…and more</li>}
          </ul>
        </div>
      )}
    </section>
  );
}
