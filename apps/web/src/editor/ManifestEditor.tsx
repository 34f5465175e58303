/**
 * The apply editor's lazily loaded part: the YAML code editor with the problems of the text marked and
 * listed — YAML syntax errors as they are typed, and the fields a refusal named (only while the text is
 * the one refused). Reports whether the text parses, so Apply waits for a well-formed manifest.
 * Test ids: `apply-editor` (the editable text), `apply-problem` (data-line / data-col).
 */
import type { StatusCause } from '@syncscope/core/api';
import { useEffect, useMemo } from 'react';
import { fieldProblem, type SourceProblem, yamlProblems } from '../lib/yaml-position.ts';
import { YamlEditor } from './YamlEditor.tsx';

interface Refusal {
  causes: StatusCause[];
  /** The text the server refused. */
  text: string;
}

function ManifestEditor({
  text,
  onText,
  refusal,
  onSyntax,
}: {
  text: string;
  onText: (t: string) => void;
  refusal: Refusal | null;
  /** Called with the number of syntax errors after each change of the text. */
  onSyntax: (errors: number) => void;
}) {
  const syntax = useMemo(() => yamlProblems(text), [text]);
  useEffect(() => onSyntax(syntax.length), [syntax, onSyntax]);
  const problems: SourceProblem[] = useMemo(() => {
    if (syntax.length > 0) return syntax;
    if (!refusal || refusal.text !== text) return [];
    return refusal.causes.flatMap((c) =>
      c.field ? (fieldProblem(text, c.field, c.message ?? c.reason ?? '') ?? []) : [],
    );
  }, [syntax, refusal, text]);
  return (
    <>
      <YamlEditor
        value={text}
        onChange={onText}
        problems={problems}
        label="pod manifest"
        testId="apply-editor"
      />
      {problems.length > 0 && (
        <ul className="apply-problems">
          {problems.map((p) => (
            <li
              key={`${p.from}:${p.message}`}
              className="bad mono"
              data-testid="apply-problem"
              data-line={p.line}
              data-col={p.col}
            >
              line {p.line}, column {p.col}: {p.message}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

export default ManifestEditor;
