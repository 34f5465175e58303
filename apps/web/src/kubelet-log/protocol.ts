/**
 * The messages between the page and the kubelet-log worker (parse.worker.ts). The page posts one
 * ParseRequest; the worker answers with `start`, progress and event batches in order, then one `done` (or
 * `error`).
 */
import type { ImportSummary } from '@syncscope/core/kubelet-log';
import type { TraceEvent } from '@syncscope/core/trace';

export interface ParseRequest {
  file: Blob;
  /** year of klog headers without one (default: the worker's current year) */
  year?: number;
}

export type ParseMessage =
  /** `kept`: the offsets are in the file's text sent with `done` (gzip, UTF-16), not in the file itself */
  | { type: 'start'; kept: boolean }
  | { type: 'progress'; bytes: number; total: number }
  /** the batches so far are void: the log is parsed again, its blocks merged by time (batches follow) */
  | { type: 'restart' }
  | {
      type: 'events';
      /** trace events only, in order, numbered from 1 without the unread entries */
      events: TraceEvent[];
      /** the unread entries that left the parser with them: raw-line records (core raw-record.ts), NDJSON */
      raws: string;
    }
  | {
      type: 'done';
      summary: ImportSummary;
      /** byte offset in the file where line n (1-based) starts, at index n-1; transferred, not copied */
      lineStarts: Float64Array;
      /** the text of a gzip-compressed file (lineStarts are offsets in it); absent when the file is the text */
      text?: Blob;
    }
  | { type: 'error'; message: string };
