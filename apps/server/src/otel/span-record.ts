/** A span as SpanModel (span-model.ts) ends it and span-events.ts fills its events: plain records, no SDK. */
type AttrValue = string | number | boolean;
export type Attrs = Record<string, AttrValue>;

export interface SpanEventRecord {
  name: string;
  timeMs: number;
  attributes: Attrs;
}

export interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startMs: number;
  endMs: number;
  attributes: Attrs;
  events: SpanEventRecord[];
  droppedEvents: number;
  /** set when the span failed: the status message */
  error?: string;
  /** the node the events came from (an imported log's `node`); absent: this server's node */
  node?: string;
}
