/**
 * Reading an exported trace (GET /api/v1/trace/export: one TraceEvent per line) back into the browser.
 * Every line is checked with checkTraceEvent, the same check the live stream applies: the envelope and
 * every field against its type's schema (@syncscope/core's trace-schema.ts). A bad line is reported with its
 * 1-based line number and the field at fault (`line 2: sync.result: /actions/0/target: Expected string`)
 * so the user can find it in the file. Blank lines are skipped.
 */
import { checkTraceEvent, type TraceEvent } from '@syncscope/core/trace';

export interface NdjsonError {
  /** 1-based line number in the file. */
  line: number;
  message: string;
}

export interface NdjsonResult {
  events: TraceEvent[];
  errors: NdjsonError[];
  /** More bad lines than `maxErrors` were found; only the first ones are listed. */
  truncated: boolean;
}

export function parseTraceNdjson(text: string, maxErrors = 20): NdjsonResult {
  const events: TraceEvent[] = [];
  const errors: NdjsonError[] = [];
  let truncated = false;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] as string).trim();
    if (raw === '') continue;
    let message: string | undefined;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (e) {
      message = `not JSON: ${(e as Error).message}`;
    }
    message ??= checkTraceEvent(value);
    if (message === undefined) {
      events.push(value as TraceEvent);
    } else if (errors.length < maxErrors) {
      errors.push({ line: i + 1, message });
    } else {
      truncated = true;
    }
  }
  return { events, errors, truncated };
}

/** "line 3: unknown type foo" */
export function formatNdjsonError(e: NdjsonError): string {
  return `line ${e.line}: ${e.message}`;
}
