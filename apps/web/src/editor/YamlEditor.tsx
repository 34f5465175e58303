/**
 * A YAML code editor (CodeMirror 6): line numbers, YAML highlighting, bracket matching, undo, and marks
 * for problems: `problems` (positions from lib/yaml-position.ts) are drawn as lint diagnostics — an
 * underline, a gutter mark and the message on hover — and listed by the caller. The text is the caller's:
 * `value` replaces the document when it differs (an example chosen), `onChange` reports each edit.
 * The editable element carries `testId` and `label` (its accessible name).
 *
 * The editor lives in a shadow root of its host element: CodeMirror then installs its styles as a
 * constructed (adopted) style sheet, which the page's Content-Security-Policy allows, where a <style>
 * element in the document would be refused. The look is therefore set here (EditorView.theme), not in a
 * CSS file; custom properties such as --mono and --line still inherit into it.
 */
import { yaml } from '@codemirror/lang-yaml';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { type Diagnostic, lintGutter, setDiagnostics } from '@codemirror/lint';
import { EditorView } from '@codemirror/view';
import { tags } from '@lezer/highlight';
import { basicSetup } from 'codemirror';
import { useEffect, useRef } from 'react';
import type { SourceProblem } from '../lib/yaml-position.ts';

const theme = EditorView.theme({
  '&': { height: '300px', fontSize: '12.5px', color: 'var(--fg)', backgroundColor: 'var(--panel)' },
  '&.cm-focused': { outline: '2px solid var(--accent)' },
  '.cm-scroller': { fontFamily: 'var(--mono)' },
  '.cm-gutters': { backgroundColor: 'var(--bg)', color: 'var(--dim)', borderRight: '1px solid var(--line)' },
  '.cm-activeLine, .cm-activeLineGutter': { backgroundColor: 'rgba(36, 86, 166, 0.07)' },
});

/**
 * YAML's colours from the page's tokens, so that both themes keep their contrast (CodeMirror's default style
 * is made for a light background only): keys in the accent, values in the text colour, comments dimmed.
 */
const highlight = HighlightStyle.define([
  { tag: [tags.propertyName, tags.definition(tags.propertyName)], color: 'var(--accent)' },
  { tag: [tags.string, tags.content, tags.number, tags.bool, tags.null], color: 'var(--fg)' },
  { tag: [tags.keyword, tags.typeName, tags.labelName, tags.attributeName], color: 'var(--src-config)' },
  { tag: [tags.comment, tags.meta, tags.punctuation, tags.separator], color: 'var(--dim)' },
  { tag: tags.invalid, color: 'var(--bad)' },
]);

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
  /**
   * The texts the editor itself reported and the page has not caught up with yet. `value` comes back with each
   * of them a render later, by when the user may have typed on: such an echo must not be written back over the
   * newer text. Only a value the editor never held (a chosen example, a reset) replaces the document.
   */
  const reported = useRef(new Set<string>());

  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const shadow = el.shadowRoot ?? el.attachShadow({ mode: 'open' });
    const mount = document.createElement('div');
    shadow.replaceChildren(mount);
    const v = new EditorView({
      parent: mount,
      root: shadow,
      doc: '',
      extensions: [
        basicSetup,
        yaml(),
        lintGutter(),
        theme,
        syntaxHighlighting(highlight),
        // tabindex: the editable area is in the tab order anyway; said outright, so that checkers inside the
        // shadow root (axe's scrollable-region rule) see the scroller's focusable content
        EditorView.contentAttributes.of({ 'aria-label': label, 'data-testid': testId, tabindex: '0' }),
        EditorView.updateListener.of((u) => {
          if (!u.docChanged) return;
          const text = u.state.doc.toString();
          reported.current.add(text);
          changed.current(text);
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
    if (!v) return;
    const doc = v.state.doc.toString();
    if (doc === value) {
      reported.current.clear(); // caught up
      return;
    }
    if (reported.current.has(value)) return; // an echo of an older text of the editor's own
    reported.current.clear();
    v.dispatch({ changes: { from: 0, to: doc.length, insert: value } });
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
