/**
 * Where in a manifest a problem is, for the apply editor's marks: the YAML syntax errors of the text
 * (with line and column), and the place a field path of the server's 422 Status names
 * (`spec.containers[0].ports[0].containerPort`: the key of the deepest part that exists, so a missing
 * required field points at its parent). Offsets are into the text; lines and columns are 1-based. Pure.
 */
import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';

export interface SourceProblem {
  from: number;
  to: number;
  line: number;
  col: number;
  message: string;
}

/** The YAML syntax errors of `text` (none for a well-formed document). */
export function yamlProblems(text: string): SourceProblem[] {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false });
  return doc.errors.map((e) => {
    const [from, to] = e.pos;
    const { line, col } = lc.linePos(from);
    return { from, to: Math.max(to, from + 1), line, col, message: e.message.split('\n')[0] ?? e.message };
  });
}

/** `spec.containers[0].image` → ['spec', 'containers', 0, 'image']; `metadata.labels[a.b/c]` keeps the key. */
export function fieldPath(field: string): (string | number)[] {
  const out: (string | number)[] = [];
  const re = /([^.[\]]+)|\[([^\]]*)\]/g;
  for (let m = re.exec(field); m; m = re.exec(field)) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(/^\d+$/.test(m[2]) ? Number(m[2]) : m[2]);
  }
  return out;
}

/** The place of `field` in `text` (see the file's comment), or null when the text does not parse. */
export function fieldProblem(text: string, field: string, message: string): SourceProblem | null {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc });
  if (doc.errors.length > 0) return null;
  let node: unknown = doc.contents;
  let range: [number, number] | null = (doc.contents as Node | null)?.range?.slice(0, 2) as
    | [number, number]
    | null;
  for (const part of fieldPath(field)) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(part));
      if (!pair) break;
      const key = pair.key as Node;
      if (key.range) range = [key.range[0], key.range[1]];
      node = pair.value;
    } else if (isSeq(node) && typeof part === 'number') {
      const item = node.items[part] as Node | undefined;
      if (!item?.range) break;
      range = [item.range[0], item.range[1]];
      node = item;
    } else break;
  }
  if (!range) return null;
  const { line, col } = lc.linePos(range[0]);
  return { from: range[0], to: Math.max(range[1], range[0] + 1), line, col, message: `${field}: ${message}` };
}
