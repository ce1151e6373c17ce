import { findResults, parseJsonPath, printResult, type JsonPathTemplate } from '../api/jsonpath';
import type { KubeObject } from '../api/types';
import type { PrinterColumn } from './resource-definition';
import { AGE_COLUMN, NAME_COLUMN, humanDuration } from './table';

/** A CRD version's `additionalPrinterColumns` item (apiextensions/v1 CustomResourceColumnDefinition). */
export interface AdditionalPrinterColumn {
  name: string;
  type: PrinterColumn['type'];
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

/** serveDefaultColumnsIfEmpty: what kube-apiserver serves for a version without columns (the CRD itself is not defaulted). */
const DEFAULT_COLUMNS: AdditionalPrinterColumn[] = [
  { name: 'Age', type: 'date', description: AGE_COLUMN.description, jsonPath: '.metadata.creationTimestamp' },
];

/**
 * The Table columns of a custom resource version, as apiextensions-apiserver's tableconvertor builds
 * them: Name, then each column. A column whose jsonPath does not parse ends the list there: kube
 * logs it and keeps the columns built so far (CRD validation only asks for a leading dot).
 */
export function customResourceColumns(columns: AdditionalPrinterColumn[]): PrinterColumn[] {
  const printed: PrinterColumn[] = [NAME_COLUMN];
  for (const column of columns.length > 0 ? columns : DEFAULT_COLUMNS) {
    let path: JsonPathTemplate;
    try {
      path = parseJsonPath(`{${column.jsonPath}}`);
    } catch {
      break;
    }
    printed.push({
      name: column.name,
      type: column.type,
      format: column.format,
      description: column.description || `Custom resource definition column (in JSONPath format): ${column.jsonPath}`,
      priority: column.priority,
      cell: (obj) => columnCell(path, column.type, obj),
    });
  }
  return printed;
}

/** The first result of the path, converted for the column's type; null when there is none. */
function columnCell(path: JsonPathTemplate, type: PrinterColumn['type'], obj: KubeObject): unknown {
  let results: unknown[][];
  try {
    results = findResults(path, obj, { allowMissingKeys: true });
  } catch {
    return null;
  }
  if (results.length === 0 || results[0].length === 0) return null;
  const value = results[0][0];
  return type === 'string' ? printResult(value) : cellForJsonValue(type, value);
}

const INT64_LIMIT = 2 ** 63;

/** cellForJSONValue: a value of another type than the column's leaves the cell null. */
function cellForJsonValue(type: Exclude<PrinterColumn['type'], 'string'>, value: unknown): unknown {
  switch (type) {
    case 'integer':
      if (typeof value !== 'number') return null;
      // Go's int64(float64): out of range, amd64 yields the smallest int64.
      return Math.abs(value) < INT64_LIMIT ? Math.trunc(value) : -INT64_LIMIT;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      return typeof value === 'string' ? humanReadableDate(value) : null;
  }
}

/** metav1.Time.UnmarshalQueryParameter, then table.ConvertToHumanReadableDateType: the age, computed by the server. */
function humanReadableDate(text: string): string {
  if (text === '' || text === 'null') return '<unknown>';
  const time = parseRfc3339(text);
  if (time === undefined) return '<invalid>';
  if (time.zero) return '<unknown>';
  return humanDuration(Date.now() - time.ms);
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{1,2}):(\d{2}):(\d{2})(?:[.,](\d+))?(?:Z|([+-])(\d{2}):(\d{2}))$/;
/** 0001-01-01T00:00:00Z, Go's zero time. */
const ZERO_MS = Date.parse('0001-01-01T00:00:00Z');

/** time.Parse(time.RFC3339, text): epoch milliseconds, and whether it is Go's zero instant. */
function parseRfc3339(text: string): { ms: number; zero: boolean } | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  const daysInMonth = new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeap(year) ? 1 : 0);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) return undefined;
  const offsetHours = m[9] === undefined ? 0 : Number(m[9]);
  const offsetMinutes = m[10] === undefined ? 0 : Number(m[10]);
  if (offsetHours > 24 || offsetMinutes > 59) return undefined;
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second));
  date.setUTCFullYear(year);
  const fraction = m[7] ?? '';
  const offset = (m[8] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  const ms = date.getTime() - offset + Number(`0.${fraction || '0'}`) * 1000;
  return { ms, zero: date.getTime() - offset === ZERO_MS && !/[1-9]/.test(fraction) };
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}
