import { CelScalar, listType, type CelList } from '@bufbuild/cel';
import { celEquals, func, type Overload } from './typed-values';

/** cel-go's sets extension (ext/sets.go, enabled from 1.29): `sets.contains`, `sets.equivalent`, `sets.intersects`, with CEL equality. */

const LIST = listType(CelScalar.DYN);
const BOOL = CelScalar.BOOL;
const items = (list: CelList): unknown[] => [...(list as Iterable<unknown>)];
const has = (list: CelList, v: unknown) => items(list).some((x) => celEquals(x, v));
const contains = (a: CelList, b: CelList) => items(b).every((v) => has(a, v));

export const setsLibrary: Overload[] = [
  func('sets.contains', [LIST, LIST], BOOL, contains),
  func('sets.equivalent', [LIST, LIST], BOOL, (a: CelList, b: CelList) => contains(a, b) && contains(b, a)),
  func('sets.intersects', [LIST, LIST], BOOL, (a: CelList, b: CelList) => items(a).some((v) => has(b, v))),
];
