/**
 * The order structured-merge-diff keeps path elements in (fieldpath.PathElement.Compare), which is
 * the order a set's paths are listed in, conflicts among them: field names, then list keys, then
 * set values, then indexes. Elements are FieldsV1's: "f:name", "k:{...}", "v:<json>", "i:<n>".
 */

const KIND_RANK: Record<string, number> = { f: 0, k: 1, v: 2, i: 3 };

/** Go's strings.Compare: by UTF-8 bytes. */
function compareStrings(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** value.Compare's order of types: numbers, strings, booleans, lists, maps, null. */
function typeRank(v: unknown): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (v !== null && typeof v === 'object') return 4;
  return 5;
}

/** value.Compare: a total order over JSON values; maps as their fields sorted by name (FieldList.Compare). */
function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 0:
      return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
    case 1:
      return compareStrings(a as string, b as string);
    case 2:
      return Number(a) - Number(b);
    case 3:
      return compareSequences(
        (a as unknown[]).map((v) => ['', v]),
        (b as unknown[]).map((v) => ['', v]),
      );
    case 4:
      return compareSequences(sortedFields(a as Record<string, unknown>), sortedFields(b as Record<string, unknown>));
    default:
      return 0;
  }
}

function sortedFields(obj: Record<string, unknown>): [string, unknown][] {
  return Object.entries(obj).sort(([x], [y]) => compareStrings(x, y));
}

/** FieldList.Compare: item by item (name, then value), the shorter first when one is a prefix of the other. */
function compareSequences(a: [string, unknown][], b: [string, unknown][]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const c = compareStrings(a[i][0], b[i][0]) || compareValues(a[i][1], b[i][1]);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

export function compareElements(a: string, b: string): number {
  const rank = KIND_RANK[a[0]] - KIND_RANK[b[0]];
  if (rank !== 0) return rank;
  const x = a.slice(2);
  const y = b.slice(2);
  switch (a[0]) {
    case 'f':
      return compareStrings(x, y);
    case 'k':
      return compareSequences(sortedFields(JSON.parse(x) as Record<string, unknown>), sortedFields(JSON.parse(y) as Record<string, unknown>));
    case 'v':
      return compareValues(JSON.parse(x), JSON.parse(y));
    default:
      return Number(x) - Number(y);
  }
}
