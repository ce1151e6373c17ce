import type { KubeObject, ListMeta } from '../api/types';
import type { PrinterColumn, ServedKind } from './resource-definition';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

export interface TableRow {
  cells: unknown[];
  object?: unknown;
}

export interface Table {
  kind: 'Table';
  apiVersion: string;
  metadata: ListMeta;
  /** Null in the events of a Table watch after the first: kube-apiserver prints the headers once. */
  columnDefinitions: TableColumnDefinition[] | null;
  rows: TableRow[];
}

/** duration.HumanDuration: how kubectl prints an age. */
export function humanDuration(ms: number): string {
  // Go's int(d.Seconds()) truncates toward zero: up to 2s in the future still reads as 0s.
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) return hours % 24 === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.floor(hours / 24) % 365;
    return days === 0 ? `${Math.floor(hours / 24 / 365)}y` : `${Math.floor(hours / 24 / 365)}y${days}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}

/** translateTimestampSince. */
export function age(timestamp: string | null | undefined): string {
  if (!timestamp) return '<unknown>';
  return humanDuration(Date.now() - Date.parse(timestamp));
}

export const NAME_COLUMN: PrinterColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  cell: (obj) => obj.metadata.name ?? '',
};

export const AGE_COLUMN: PrinterColumn = {
  name: 'Age',
  type: 'string',
  description:
    'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
  cell: (obj) => age(obj.metadata.creationTimestamp),
};

/** The default convertor's columns, for kinds without printer columns of their own. */
const DEFAULT_COLUMNS: PrinterColumn[] = [
  NAME_COLUMN,
  {
    name: 'Created At',
    type: 'date',
    description: AGE_COLUMN.description,
    cell: (obj) => obj.metadata.creationTimestamp ?? null,
  },
];

function rowObject(obj: KubeObject, include: IncludeObject, metaApiVersion: string): unknown {
  if (include === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion: metaApiVersion, metadata: obj.metadata };
}

export function toTable(def: ServedKind, objects: KubeObject[], listMeta: ListMeta, include: IncludeObject, metaApiVersion: string): Table {
  const columns = def.printerColumns.length > 0 ? def.printerColumns : DEFAULT_COLUMNS;
  return {
    kind: 'Table',
    apiVersion: metaApiVersion,
    metadata: listMeta,
    columnDefinitions: columns.map((c) => ({
      name: c.name,
      type: c.type,
      format: c.format ?? '',
      description: c.description,
      priority: c.priority ?? 0,
    })),
    rows: (def.rowOrder ? [...objects].sort(def.rowOrder) : objects).map((obj) => {
      const row: TableRow = { cells: columns.map((c) => c.cell(obj)) };
      if (include !== 'None') row.object = rowObject(obj, include, metaApiVersion);
      return row;
    }),
  };
}
