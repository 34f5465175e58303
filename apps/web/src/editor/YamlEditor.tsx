/**
 * A YAML code editor (CodeMirror 6): line numbers, YAML highlighting, bracket matching, undo, and marks
 * for problems: `problems` (positions from lib/yaml-position.ts) are drawn as lint diagnostics — an
 * underline, a gutter mark and the message on hover — and listed by the caller. The text is the caller's:
 * `value` replaces the document when it differs (an example chosen), `onChange` reports each edit.
 * The editable element carries `testId` and `label` (its accessible name).
 */
import { yaml } from '@codemirror/lang-yaml';
import { type Diagnostic, lintGutter, setDiagnostics } from '@codemirror/lint';
import { EditorView } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import { useEffect, useRef } from 'react';
import type { SourceProblem } from '../lib/yaml-position.ts';

export function YamlEditor({
  value,
  onChange,
  problems,
  label,
  testId,
}: {
  value: string;
  onChange: (text: string) => void;
  problems: readonly SourceProblem[];
  label: string;
  testId: string;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;

  useEffect(() => {
    if (!host.current) return;
    const v = new EditorView({
      parent: host.current,
      doc: '',
      extensions: [
        basicSetup,
        yaml(),
        lintGutter(),
        EditorView.contentAttributes.of({ 'aria-label': label, 'data-testid': testId }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) changed.current(u.state.doc.toString());
        }),
      ],
    });
    view.current = v;
    return () => {
      v.destroy();
      view.current = null;
    };
  }, [label, testId]);

  useEffect(() => {
    const v = view.current;
    if (!v || v.state.doc.toString() === value) return;
    v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: value } });
  }, [value]);

  useEffect(() => {
    const v = view.current;
    if (!v) return;
    const len = v.state.doc.length;
    const diagnostics: Diagnostic[] = problems.map((p) => ({
      from: Math.min(p.from, len),
      to: Math.min(Math.max(p.to, p.from), len),
      severity: 'error',
      message: p.message,
    }));
    v.dispatch(setDiagnostics(v.state, diagnostics));
  }, [problems]);

  return <div ref={host} className="yaml-editor" />;
}
