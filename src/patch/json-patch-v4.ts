import type { Operation } from 'fast-json-patch';
import { isPlainObject } from '../api/types';
import type { V4Decoded } from './v4-bytes';

/**
 * What gopkg.in/evanphx/json-patch.v4 (kube-apiserver's JSON patch, webhooks' patches too) reads
 * differently from RFC 6902, as operations fast-json-patch applies the RFC way:
 * - array indices as strconv.Atoi reads them (`+1`, `01`), negative ones from the end
 *   (SupportNegativeIndices; an `add` at -1 appends);
 * - `replace` of a key an object does not have sets it (partialDoc.get finds nothing, without error);
 * - `test` of a key an object does not have passes when the value is null or absent;
 * - `add` without a value adds null.
 * An operation v4 passes without effect is returned as null.
 */
export function asV4Reads(document: unknown, operation: Operation): Operation | null {
  type Loose = Operation & { value?: unknown; from?: unknown };
  const op = operation as Loose;
  let rewritten: Loose = op;
  if (op.op === 'add' && !Object.hasOwn(op, 'value')) rewritten = { ...(op as object), value: null } as Loose;
  if (typeof op.path === 'string') {
    const target = locate(document, op.path, op.op === 'add');
    if (target) {
      if (target.pointer !== op.path) rewritten = { ...rewritten, path: target.pointer };
      const missingKey = isPlainObject(target.parent) && !Object.hasOwn(target.parent, target.key);
      if (op.op === 'replace' && missingKey) rewritten = { ...rewritten, op: 'add' } as typeof rewritten;
      if (op.op === 'test') {
        // A member holding null is a nil node to v4, as a missing one is: a test of null, or of no value, passes.
        const held = missingKey ? null : (target.parent as Record<string, unknown> | unknown[] | null)?.[target.key as never];
        if ((missingKey || held === null) && (op.value === undefined || op.value === null)) return null;
        if (!Object.hasOwn(op, 'value')) throw new V4TestFailed();
      }
    }
  }
  if ((op.op === 'move' || op.op === 'copy') && typeof op.from === 'string') {
    const source = locate(document, op.from, false);
    if (source && source.pointer !== op.from) rewritten = { ...rewritten, from: source.pointer } as typeof rewritten;
  }
  return rewritten;
}

/**
 * What findObject decodes on its way to a pointer's key (the document, then every container above
 * the key, as Go maps or slices), and for a `test` what lazyNode.equal decodes (the tested value,
 * all of it, as a test that passes compares all of it). `from` is read in the document before the
 * operation, a `move`'s `path` after it, as json-patch reads them.
 */
export function decodedBy(document: unknown, operation: Operation, when: 'before' | 'after', decoded: V4Decoded): void {
  const { op, path, from } = operation as Operation & { from?: unknown };
  const mark = (container: object): void => void decoded.add(container);
  if (when === 'before' && (op === 'move' || op === 'copy') && typeof from === 'string') locate(document, from, false, mark);
  const pathRead = op === 'move' ? 'after' : 'before';
  if (when !== pathRead || typeof path !== 'string') return;
  if (op === 'test' && path === '') return markAll(document, decoded);
  const target = locate(document, path, false, mark);
  if (op === 'test' && target && typeof target.parent === 'object' && target.parent !== null) {
    markAll((target.parent as Record<string, unknown>)[target.key], decoded);
  }
}

function markAll(value: unknown, decoded: V4Decoded): void {
  if (typeof value !== 'object' || value === null) return;
  decoded.add(value);
  for (const v of Object.values(value)) markAll(v, decoded);
}

/** A `test` json-patch v4 fails where fast-json-patch would not look (a value left out). */
export class V4TestFailed extends Error {}

const unescape = (segment: string): string => segment.replace(/~1/g, '/').replace(/~0/g, '~');
const escape = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** strconv.Atoi's syntax: an optional sign, then decimal digits. */
const ATOI = /^[+-]?[0-9]+$/;

/**
 * The pointer's target: its parent container, its last key, and the pointer with every array
 * index in canonical form. Null where the pointer is malformed or its parent does not exist
 * (fast-json-patch then fails the operation, as json-patch does).
 */
function locate(
  document: unknown,
  pointer: string,
  adding: boolean,
  visit?: (container: object) => void,
): { parent: unknown; key: string; pointer: string } | null {
  if (pointer === '' || !pointer.startsWith('/')) return null;
  const segments = pointer.slice(1).split('/').map(unescape);
  let current = document;
  const canonical: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const last = i === segments.length - 1;
    let key = segments[i];
    if (Array.isArray(current) && ATOI.test(key)) {
      let index = Number(key);
      // partialArray.add counts from the end of the array it makes, one longer.
      const length = current.length + (last && adding ? 1 : 0);
      if (index < 0 && index >= -length) index += length;
      key = String(index);
    }
    canonical.push(escape(key));
    if (typeof current === 'object' && current !== null) visit?.(current);
    if (last) return { parent: current, key, pointer: `/${canonical.join('/')}` };
    if (Array.isArray(current)) current = current[Number(key)];
    else if (isPlainObject(current) && Object.hasOwn(current, key)) current = current[key];
    else return null;
  }
  return null;
}
