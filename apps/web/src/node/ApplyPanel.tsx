/**
 * Apply a pod manifest: a YAML code editor (editor/YamlEditor.tsx) prefilled from one of the server's
 * examples (GET /api/v1/examples), POSTed to the namespace the manifest names. A YAML syntax error is
 * marked as it is typed (line and column); a refusal is shown inline as the server gave it — the Status
 * message and, for each cause, the field and the reason — and each named field is marked in the editor
 * with its line and column. A created pod is a link to its pod view. Test ids: `apply-editor`,
 * `apply-problem` (data-line / data-col), `apply-result`, `apply-pod-link`, `apply-error`, `apply-cause`.
 */
import type { StatusCause } from '@syncscope/core/api';
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useState } from 'react';
import { ApiError, createPod } from '../api/client.ts';
import { getExamples, manifestNamespace } from '../api/node-actions.ts';
import { useNodeRows } from '../api/queries.ts';
import { usePageSettled } from '../hooks/use-page-settled.ts';
import '../editor/editor.css';

// the editor is a chunk of its own (CodeMirror and the YAML parser, ~530 kB), so the node view's first
// paint does not wait for it; when the chunk cannot be fetched (the server went away while it loaded), the
// manifest is edited in a plain box instead: a failed import would otherwise unmount the whole page. A reload
// brings the editor back.
const ManifestEditor = lazy(() =>
  import('../editor/ManifestEditor.tsx').catch(() => ({ default: PlainEditor })),
);

function PlainEditor({ text, onText }: { text: string; onText: (t: string) => void }) {
  return (
    <textarea
      className="mono yaml-editor-plain"
      data-testid="manifest-plain"
      aria-label="manifest"
      rows={16}
      style={{ width: '100%', boxSizing: 'border-box' }}
      spellCheck={false}
      value={text}
      onChange={(e) => onText(e.target.value)}
    />
  );
}

const settled = () => true;

/**
 * Whether to mount the editor yet: only once the table's rows have come back (or failed) and the browser has
 * an idle moment after that, so fetching and compiling the editor's chunk never delays the table's first
 * rows. Waits at most a second for the idle moment.
 */
function useEditorWanted(): boolean {
  const rows = useNodeRows(settled);
  const [wanted, setWanted] = useState(false);
  const ready = !rows.isPending;
  useEffect(() => {
    if (!ready || wanted) return;
    if (typeof window.requestIdleCallback !== 'function') {
      const t = window.setTimeout(() => setWanted(true), 200);
      return () => window.clearTimeout(t);
    }
    const id = window.requestIdleCallback(() => setWanted(true), { timeout: 1_000 });
    return () => window.cancelIdleCallback(id);
  }, [ready, wanted]);
  return wanted;
}

const EDITOR_LOADING = <p className="dim yaml-editor-loading">loading the editor…</p>;

interface Failure {
  message: string;
  causes: StatusCause[];
  /** The text the server refused (the marks stay on it until the next apply). */
  text: string;
}

export function ApplyPanel() {
  // asked once the page's first screen is in
  const pageSettled = usePageSettled();
  const examples = useQuery({
    queryKey: ['examples'],
    queryFn: getExamples,
    staleTime: Number.POSITIVE_INFINITY,
    enabled: pageSettled,
  });
  const items = examples.data?.items ?? [];
  // Until the user picks or types, the first example is chosen and its text shown: derived, not copied in by an
  // effect, so a pick made in the same moment as the list arrives is never overwritten.
  const [picked, setChosen] = useState('');
  const [typed, setText] = useState<string | null>(null);
  const chosen = picked || (items[0]?.file ?? '');
  const text = typed ?? items.find((e) => e.file === chosen)?.yaml ?? '';
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [done, setDone] = useState<{ namespace: string; name: string } | null>(null);
  const [syntaxErrors, setSyntaxErrors] = useState(0);
  const editorWanted = useEditorWanted();

  const choose = (file: string) => {
    setChosen(file);
    const ex = items.find((e) => e.file === file);
    if (ex) setText(ex.yaml);
    setFailure(null);
    setDone(null);
  };

  const submit = async () => {
    setBusy(true);
    setFailure(null);
    setDone(null);
    const namespace = manifestNamespace(text);
    try {
      const pod = await createPod(namespace, text);
      setDone({ namespace: pod.metadata.namespace ?? namespace, name: pod.metadata.name });
    } catch (e) {
      if (e instanceof ApiError)
        setFailure({ message: e.message, causes: e.status?.details?.causes ?? [], text });
      else setFailure({ message: (e as Error).message, causes: [], text });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="panel apply">
      <h2>Apply</h2>
      <div className="toolbar">
        <select
          value={chosen}
          onChange={(e) => choose(e.target.value)}
          data-testid="apply-example"
          aria-label="example"
        >
          {items.length === 0 && <option value="">no examples</option>}
          {items.map((e) => (
            <option key={e.file} value={e.file}>
              {e.file} — {e.description}
            </option>
          ))}
        </select>
      </div>
      {editorWanted ? (
        <Suspense fallback={EDITOR_LOADING}>
          <ManifestEditor text={text} onText={setText} refusal={failure} onSyntax={setSyntaxErrors} />
        </Suspense>
      ) : (
        EDITOR_LOADING
      )}
      <div className="toolbar">
        <button
          type="button"
          onClick={submit}
          disabled={busy || text.trim() === '' || syntaxErrors > 0}
          data-testid="apply-submit"
        >
          {busy ? 'applying…' : 'Apply'}
        </button>
        {done && (
          <span className="ok" data-testid="apply-result" role="status">
            pod/{done.name} created in {done.namespace} —{' '}
            <a
              href={`#/pods/${encodeURIComponent(done.namespace)}/${encodeURIComponent(done.name)}`}
              data-testid="apply-pod-link"
            >
              open its pod view
            </a>
          </span>
        )}
      </div>
      {failure && (
        <div className="apply-error" data-testid="apply-error" role="alert">
          <div className="bad">{failure.message}</div>
          {failure.causes.length > 0 && (
            <ul>
              {failure.causes.map((c) => (
                <li key={`${c.field}:${c.reason}:${c.message}`} data-testid="apply-cause">
                  <span className="mono cause-field">{c.field}</span> <span className="tag">{c.reason}</span>{' '}
                  {c.message}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}
