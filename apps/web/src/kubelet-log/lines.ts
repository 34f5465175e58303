/**
 * Where the replay of a kubelet log reads the log's own lines: from the opened File (byte offsets the worker
 * recorded, one slice read per request) or from the server that keeps a shared import. Only the lines a view
 * asks for are ever read, so a large log costs its offsets, not its text.
 */
import { authFetch } from '../api/auth.ts';

/** The longest line shown; the rest of a longer one is cut. */
const MAX_SHOWN_BYTES = 16 * 1024;

export interface LineSource {
  /** The text of line `n` (1-based) without its newline, or undefined past the end. */
  read(n: number): Promise<string | undefined>;
}

export function fileLines(file: Blob, lineStarts: Float64Array): LineSource {
  return {
    async read(n) {
      const start = lineStarts[n - 1];
      if (start === undefined || start >= file.size) return undefined;
      const end = Math.min(lineStarts[n] ?? file.size, start + MAX_SHOWN_BYTES);
      return (await file.slice(start, end).text()).replace(/\r?\n$/, '');
    },
  };
}

/** GET /api/v1/imports/{id}/log?line=n: one line of a shared import's log. */
export function serverLines(id: string): LineSource {
  return {
    async read(n) {
      const res = await authFetch(`/api/v1/imports/${encodeURIComponent(id)}/log?line=${n}`);
      if (!res.ok) return undefined;
      return res.text();
    },
  };
}
