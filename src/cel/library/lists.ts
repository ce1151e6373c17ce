import { CelScalar, isCelUint, listType, type CelList } from '@bufbuild/cel';
import { celAdd, celEquals, celLess, method, type Overload } from './typed-values';

/**
 * Kubernetes' lists library at version 0 (apiserver/pkg/cel/library/lists.go, unversioned in
 * environment/base.go): `isSorted`, `sum`, `min`, `max`, `indexOf`, `lastIndexOf`, with CEL's own
 * ordering, addition and equality of the elements.
 */

const { BOOL, INT, DYN } = CelScalar;
const LIST = listType(DYN);

const items = (list: CelList): unknown[] => [...(list as Iterable<unknown>)];

/** Whether a value is the evaluator's google.protobuf message of this name (durations, timestamps). */
const isMessage = (v: unknown, typeName: string): boolean => (v as { desc?: { typeName?: string } } | null)?.desc?.typeName === typeName;

/** lists.go's summableTypes: int, uint, double and duration. */
function summable(v: unknown): boolean {
  return typeof v === 'bigint' || typeof v === 'number' || isCelUint(v) || isMessage(v, 'google.protobuf.Duration');
}

/** lists.go's comparableTypes: the summable ones, bool, timestamp, string and bytes. */
function comparable(v: unknown): boolean {
  return summable(v) || typeof v === 'boolean' || typeof v === 'string' || v instanceof Uint8Array || isMessage(v, 'google.protobuf.Timestamp');
}

/** The list's elements, each of a type the function takes (kube's checker refuses others). */
function elements(list: CelList, accepts: (v: unknown) => boolean): unknown[] {
  const all = items(list);
  if (!all.every(accepts)) throw new Error('no such overload');
  return all;
}

/** Elements kube's schema would type alike: a JSON number list holds ints and doubles, summed as doubles. */
function add(a: unknown, b: unknown): unknown {
  if (typeof a === 'bigint' && typeof b === 'number') return Number(a) + b;
  if (typeof a === 'number' && typeof b === 'bigint') return a + Number(b);
  return celAdd(a, b);
}

function extreme(name: 'min' | 'max', list: CelList): unknown {
  const all = elements(list, comparable);
  if (all.length === 0) throw new Error(`${name} called on empty list`);
  return all.reduce((best, next) => ((name === 'min' ? celLess(next, best) : celLess(best, next)) ? next : best));
}

export const listsLibrary: Overload[] = [
  method('isSorted', LIST, [], BOOL, (list: CelList) => {
    const all = elements(list, comparable);
    return all.every((v, i) => i === 0 || !celLess(v, all[i - 1]));
  }),
  // kube starts from the zero of the list's static type; untyped, an empty list sums to the int 0.
  method('sum', LIST, [], DYN, (list: CelList) => {
    const all = elements(list, summable);
    return all.length === 0 ? 0n : all.reduce(add);
  }),
  method('min', LIST, [], DYN, (list: CelList) => extreme('min', list)),
  method('max', LIST, [], DYN, (list: CelList) => extreme('max', list)),
  method('indexOf', LIST, [DYN], INT, (list: CelList, item: unknown) => BigInt(items(list).findIndex((v) => celEquals(v, item)))),
  method('lastIndexOf', LIST, [DYN], INT, (list: CelList, item: unknown) => {
    const all = items(list);
    for (let i = all.length - 1; i >= 0; i--) if (celEquals(all[i], item)) return BigInt(i);
    return -1n;
  }),
];
