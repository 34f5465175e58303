/**
 * Server-side Table output (meta.k8s.io Table), the form `kubectl get` asks for with
 * `Accept: application/json;as=Table;v=v1;g=meta.k8s.io,…`: column definitions plus one row of printed
 * cells per object, each row carrying the object's metadata (PartialObjectMetadata) unless
 * `?includeObject=None` (or the whole object with `Object`). As the API server does, every column is
 * filled (the wide ones too, priority 1); kubectl shows the priority-0 ones unless `-o wide`.
 *
 * The printers (pods.ts, events.ts, nodes.ts) are pure: an object and `now` (ms, the engine's clock) in, cells
 * out.
 */
import type { ObjectMeta } from '@syncscope/core/api';

export interface TableColumnDefinition {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format: string;
  description: string;
  priority: number;
}

type Cell = string | number | boolean;

export interface TableRowCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
}

interface TableRow {
  cells: Cell[];
  conditions?: TableRowCondition[];
  object?: unknown;
}

export interface Table {
  kind: 'Table';
  apiVersion: string;
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

/** A printer: its columns and how one object becomes the cells of its row. */
export interface Printer<T> {
  columns: readonly TableColumnDefinition[];
  row(obj: T, now: number): { cells: Cell[]; conditions?: TableRowCondition[] };
}

export const column = (
  name: string,
  description: string,
  priority = 0,
  format = '',
  type: TableColumnDefinition['type'] = 'string',
): TableColumnDefinition => ({ name, type, format, description, priority });

/** The column every printer starts with. */
export const NAME_COLUMN = column(
  'Name',
  'Name must be unique within a namespace. Cannot be updated.',
  0,
  'name',
);
export const AGE_COLUMN = column(
  'Age',
  'CreationTimestamp is a timestamp representing the server time when this object was created.',
);

export type TableVersion = 'v1' | 'v1beta1';

/**
 * The Table version an Accept header asks for (the first media type that names `as=Table;g=meta.k8s.io`
 * with a version we serve), or undefined for a plain answer.
 */
export function tableRequested(accept: string | undefined): TableVersion | undefined {
  if (!accept?.includes('as=Table')) return undefined;
  for (const media of accept.split(',')) {
    const params = new Map<string, string>();
    for (const p of media.split(';').slice(1)) {
      const [k, v] = p.split('=');
      if (k && v) params.set(k.trim(), v.trim());
    }
    if (params.get('as') !== 'Table' || params.get('g') !== 'meta.k8s.io') continue;
    const v = params.get('v');
    if (v === 'v1' || v === 'v1beta1') return v;
  }
  return undefined;
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export function includeObjectParam(v: unknown): IncludeObject | undefined {
  if (v === undefined || v === '') return 'Metadata';
  return v === 'None' || v === 'Metadata' || v === 'Object' ? v : undefined;
}

export interface TableOptions {
  version: TableVersion;
  include: IncludeObject;
  now: number;
  metadata: Table['metadata'];
}

/** Prints `items` with `printer` into a Table. */
export function toTable<T extends { metadata: ObjectMeta }>(
  printer: Printer<T>,
  items: readonly T[],
  opts: TableOptions,
): Table {
  const apiVersion = `meta.k8s.io/${opts.version}`;
  return {
    kind: 'Table',
    apiVersion,
    metadata: opts.metadata,
    columnDefinitions: [...printer.columns],
    rows: items.map((obj) => {
      const { cells, conditions } = printer.row(obj, opts.now);
      const row: TableRow = { cells, ...(conditions ? { conditions } : {}) };
      if (opts.include === 'Object') row.object = obj;
      else if (opts.include === 'Metadata') {
        row.object = { kind: 'PartialObjectMetadata', apiVersion, metadata: obj.metadata };
      }
      return row;
    }),
  };
}
