/**
 * Apply a pod manifest: a YAML editor prefilled from one of the server's examples (GET /api/v1/examples),
 * POSTed to the namespace the manifest names. A refusal is shown inline as the server gave it: the
 * Status message and, for each cause, the field and the reason.
 */
import type { StatusCause } from '@syncscope/core/api';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { ApiError, createPod } from '../api/client.ts';
import { getExamples, manifestNamespace } from '../api/node-actions.ts';

interface Failure {
  message: string;
  causes: StatusCause[];
}

export function ApplyPanel() {
  const examples = useQuery({
    queryKey: ['examples'],
    queryFn: getExamples,
    staleTime: Number.POSITIVE_INFINITY,
  });
  const items = examples.data?.items ?? [];
  const [chosen, setChosen] = useState('');
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Failure | null>(null);
  const [done, setDone] = useState<string | null>(null);

  // Prefill with the first example once the list arrives.
  useEffect(() => {
    const first = examples.data?.items[0];
    if (first && chosen === '') {
      setChosen(first.file);
      setText(first.yaml);
    }
  }, [examples.data, chosen]);

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
      setDone(`pod/${pod.metadata.name} created in ${pod.metadata.namespace ?? namespace}`);
    } catch (e) {
      if (e instanceof ApiError) setFailure({ message: e.message, causes: e.status?.details?.causes ?? [] });
      else setFailure({ message: (e as Error).message, causes: [] });
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
      <textarea
        className="mono apply-editor"
        spellCheck={false}
        rows={14}
        value={text}
        onChange={(e) => setText(e.target.value)}
        data-testid="apply-editor"
        aria-label="pod manifest"
      />
      <div className="toolbar">
        <button
          type="button"
          onClick={submit}
          disabled={busy || text.trim() === ''}
          data-testid="apply-submit"
        >
          {busy ? 'applying…' : 'Apply'}
        </button>
        {done && (
          <span className="ok" data-testid="apply-result">
            {done}
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
