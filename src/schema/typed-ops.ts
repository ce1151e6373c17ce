import { jsonEqual } from '../api/deep-equal';
import { runSteps, runStepsInSlices, type Steps } from '../api/loop-slices';
import { isPlainObject, setOwn } from '../api/types';
import { byFieldsV1Order, child, elements, fieldElement, FieldSet, keyElement, rootPath, valueElement, type FieldPath } from './field-set';
import type { ObjectNode, SchemaNode } from './typed-schema';
import { jsonClone } from '../api/json-clone';

/**
 * The operations of server-side apply over plain JSON values and a schema: the set of fields a
 * value sets, the comparison of two values, the merge of an applied configuration into a live
 * object, and the removal of fields. They follow structured-merge-diff's rules: atomic lists,
 * maps and structs are single fields; keyed lists and sets are merged item by item.
 */

type Obj = Record<string, unknown>;

function isLeaf(node: SchemaNode): boolean {
  switch (node.kind) {
    case 'object':
    case 'map':
      return node.atomic;
    case 'list':
      return node.listType === 'atomic';
    default:
      return true;
  }
}

/**
 * structured-merge-diff's __untyped_deduced_, the type of fields a schema keeps without declaring
 * them (x-kubernetes-preserve-unknown-fields): an object is merged key by key, anything else is
 * one value.
 */
const DEDUCED: ObjectNode = {
  kind: 'object',
  atomic: false,
  preservesUnknown: true,
  origin: 'openapi',
  name: '__untyped_deduced_',
  fullName: '__untyped_deduced_',
  field: () => null,
  fieldNames: () => [],
};

function childNode(node: SchemaNode, key: string): SchemaNode | null {
  if (node.kind === 'object') return node.field(key)?.node ?? (node.preservesUnknown ? DEDUCED : null);
  if (node.kind === 'map') return node.values;
  return null;
}

/** A map's entries and an object's undeclared fields are members of their own in a field set. */
function isElement(node: SchemaNode, key: string): boolean {
  return node.kind === 'map' || (node.kind === 'object' && node.field(key) === null);
}

type ListNode = Extract<SchemaNode, { kind: 'list' }>;

const keyDefaultsCache = new WeakMap<ListNode, [string, unknown][]>();

/** The keys of a keyed list that have a default (a container port's protocol, TCP). */
function keyDefaults(node: ListNode): [string, unknown][] {
  let defaults = keyDefaultsCache.get(node);
  if (!defaults) {
    const items = node.items;
    defaults =
      items.kind === 'object'
        ? node.keys.flatMap((k) => {
            const value = items.field(k)?.facts.default;
            return value === undefined ? [] : [[k, value] as [string, unknown]];
          })
        : [];
    keyDefaultsCache.set(node, defaults);
  }
  return defaults;
}

/**
 * An item's path element. A key left out takes its schema default, as structured-merge-diff
 * reads list-map keys (so `{containerPort: 80}` is `k:{"containerPort":80,"protocol":"TCP"}` and
 * matches the defaulted live item).
 */
function itemElement(node: ListNode, item: unknown): string {
  if (node.listType !== 'map' || !isPlainObject(item)) return valueElement(item);
  let keyed = item;
  for (const [k, value] of keyDefaults(node)) {
    if (keyed[k] === undefined) {
      if (keyed === item) keyed = { ...item };
      keyed[k] = value;
    }
  }
  return keyElement(node.keys, keyed);
}

const isEmptyObject = (v: unknown): boolean => isPlainObject(v) && Object.keys(v).length === 0;

/** The fields a value sets (ToFieldSet). */
export function fieldSetOf(value: unknown, node: SchemaNode, path: FieldPath = rootPath, into = new FieldSet()): FieldSet {
  if (isLeaf(node)) {
    into.insert(path);
    return into;
  }
  if (node.kind === 'list') {
    if (!Array.isArray(value)) return into;
    for (const item of value) {
      const p = child(path, itemElement(node, item));
      fieldSetOf(item, node.items, p, into);
      into.insert(p);
    }
    return into;
  }
  if (!isPlainObject(value)) return into;
  for (const [key, v] of Object.entries(value)) {
    const sub = childNode(node, key);
    if (!sub) continue;
    const p = child(path, fieldElement(key));
    fieldSetOf(v, sub, p, into);
    if (v === null || isEmptyObject(v) || isElement(node, key)) into.insert(p);
  }
  return into;
}

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** What changed from `lhs` to `rhs`, field by field (Compare). */
export function compare(lhs: unknown, rhs: unknown, node: SchemaNode): Comparison {
  const [out, steps] = comparison(lhs, rhs, node);
  runSteps(steps);
  return out;
}

/** compare, yielding to the event loop through `slice` while it walks a huge object (issue 25). */
export async function compareInSlices(lhs: unknown, rhs: unknown, node: SchemaNode, slice: () => Promise<void>): Promise<Comparison> {
  const [out, steps] = comparison(lhs, rhs, node);
  await runStepsInSlices(steps, slice);
  return out;
}

/**
 * Values a comparison visits by plain recursion before it leaves the rest to steps: a step (a
 * closure) per value made most of a create's garbage, and most objects are far smaller than this.
 */
const RECURSED_VALUES = 2048;

interface Walk {
  out: Comparison;
  steps: Steps;
  /** Values still to be visited by recursion. */
  recursions: number;
}

function comparison(lhs: unknown, rhs: unknown, node: SchemaNode): [Comparison, Steps] {
  const walk: Walk = { out: { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() }, steps: [], recursions: RECURSED_VALUES };
  walk.steps.push(() => compareInto(lhs ?? undefined, rhs ?? undefined, node, rootPath, walk));
  return [walk.out, walk.steps];
}

/**
 * One value's comparison. Its children are compared at once while the walk's recursions last;
 * after that they are pushed as steps, after the step that marks the value itself once they are
 * done, so that a huge object is compared in slices.
 */
function compareInto(lhs: unknown, rhs: unknown, node: SchemaNode, path: FieldPath, walk: Walk): void {
  const { out, steps } = walk;
  if (lhs === undefined && rhs === undefined) return;
  const bothEmpty = (lhs === undefined || isEmptyObject(lhs)) && (rhs === undefined || isEmptyObject(rhs));
  if (isLeaf(node) || bothEmpty || (node.kind !== 'list' && ((lhs !== undefined && !isPlainObject(lhs)) || (rhs !== undefined && !isPlainObject(rhs))))) {
    if (lhs === undefined) out.added.insert(path);
    else if (rhs === undefined) out.removed.insert(path);
    else if (!jsonEqual(lhs, rhs)) out.modified.insert(path);
    return;
  }
  const marksItself = path !== rootPath && (lhs === undefined || rhs === undefined);
  if (walk.recursions > 0) {
    walk.recursions--;
    forEachChild(lhs, rhs, node, (l, r, sub, element) => compareInto(l, r, sub, child(path, element), walk));
    if (marksItself) (lhs === undefined ? out.added : out.removed).insert(path);
    return;
  }
  if (marksItself) steps.push(() => (lhs === undefined ? out.added : out.removed).insert(path));
  const children: (() => void)[] = [];
  forEachChild(lhs, rhs, node, (l, r, sub, element) => children.push(() => compareInto(l, r, sub, child(path, element), walk)));
  for (let i = children.length - 1; i >= 0; i--) steps.push(children[i]);
}

/** The pairs of children of a list or map on either side, with their path elements, left's first. */
function forEachChild(lhs: unknown, rhs: unknown, node: SchemaNode, visit: (lhs: unknown, rhs: unknown, node: SchemaNode, element: string) => void): void {
  if (node.kind === 'list') {
    const left = new Map((Array.isArray(lhs) ? lhs : []).map((i) => [itemElement(node, i), i] as const));
    const right = new Map((Array.isArray(rhs) ? rhs : []).map((i) => [itemElement(node, i), i] as const));
    for (const [pe, item] of left) visit(item, right.get(pe), node.items, pe);
    for (const [pe, item] of right) if (!left.has(pe)) visit(undefined, item, node.items, pe);
    return;
  }
  const l = (lhs ?? {}) as Obj;
  const r = (rhs ?? {}) as Obj;
  for (const key in l) {
    const sub = childNode(node, key);
    if (sub) visit(l[key] ?? undefined, r[key] ?? undefined, sub, fieldElement(key));
  }
  for (const key in r) {
    if (Object.prototype.hasOwnProperty.call(l, key)) continue;
    const sub = childNode(node, key);
    if (sub) visit(undefined, r[key] ?? undefined, sub, fieldElement(key));
  }
}

/**
 * Path elements a walk leaves out, as a tree: `true` drops the element and all under it; a
 * nested tree drops parts under it. Built once from a few paths (a kind's untracked fields).
 */
export interface PrunedPaths {
  [element: string]: PrunedPaths | true;
}

export function prunedPathsOf(paths: FieldPath[]): PrunedPaths {
  const tree: PrunedPaths = {};
  for (const path of paths) {
    const parts = elements(path);
    let at = tree;
    for (let i = 0; i < parts.length; i++) {
      const next = at[parts[i]];
      if (next === true) break;
      if (i === parts.length - 1) at[parts[i]] = true;
      else at = next ?? (at[parts[i]] = {});
    }
  }
  return tree;
}

/** What is left of a changedFieldsV1 walk's budget; below zero, the walk gave up. */
interface Budget {
  values: number;
}

/**
 * The fields that `rhs` adds or modifies over `lhs`, less `pruned` and never the root's
 * `unmarked` elements themselves, written straight as a FieldsV1 tree: the same tree as
 * `compare`'s added ∪ modified, filtered and written by FieldSet.toFieldsV1, without a set
 * between them (a create's field bookkeeping was a fifth of its garbage). Undefined when the
 * values are too many to walk at once: the caller walks them in slices the long way.
 */
export function changedFieldsV1(
  lhs: unknown,
  rhs: unknown,
  node: SchemaNode,
  pruned: PrunedPaths,
  unmarked: ReadonlySet<string>,
): Record<string, unknown> | null | undefined {
  const budget: Budget = { values: RECURSED_VALUES };
  const tree = changedTree(lhs ?? undefined, rhs ?? undefined, node, pruned, unmarked, true, budget);
  return budget.values < 0 ? undefined : tree;
}

/** compareInto's cases, yielding a value's FieldsV1 node: {} for a member alone, null for nothing changed. */
function changedTree(
  lhs: unknown,
  rhs: unknown,
  node: SchemaNode,
  pruned: PrunedPaths | undefined,
  unmarked: ReadonlySet<string>,
  root: boolean,
  budget: Budget,
): Record<string, unknown> | null {
  if (lhs === undefined && rhs === undefined) return null;
  if (--budget.values < 0) return null;
  const bothEmpty = (lhs === undefined || isEmptyObject(lhs)) && (rhs === undefined || isEmptyObject(rhs));
  if (isLeaf(node) || bothEmpty || (node.kind !== 'list' && ((lhs !== undefined && !isPlainObject(lhs)) || (rhs !== undefined && !isPlainObject(rhs))))) {
    return lhs === undefined || (rhs !== undefined && !jsonEqual(lhs, rhs)) ? {} : null;
  }
  let children: [string, Record<string, unknown>][] | null = null;
  forEachChild(lhs, rhs, node, (l, r, sub, element) => {
    const drop = pruned?.[element];
    if (drop === true) return;
    const tree = changedTree(l, r, sub, drop, unmarked, false, budget);
    if (!tree) return;
    if (root && unmarked.has(element) && Object.keys(tree).length === 0) return;
    (children ??= []).push([element, root && unmarked.has(element) ? withoutMark(tree) : tree]);
  });
  const member = !root && lhs === undefined;
  if (!children) return member ? {} : null;
  const out: Record<string, unknown> = {};
  if (member) out['.'] = {};
  for (const [element, tree] of (children as [string, Record<string, unknown>][]).sort(byElement)) setOwn(out, element, tree);
  return out;
}

function byElement(a: [string, unknown], b: [string, unknown]): number {
  return byFieldsV1Order(a[0], b[0]);
}

/** A FieldsV1 node less its own membership: its children only. */
function withoutMark(tree: Record<string, unknown>): Record<string, unknown> {
  if (!('.' in tree)) return tree;
  const { '.': _mark, ...rest } = tree;
  return rest;
}

/** An applied configuration merged into a live value (Merge). A null in the configuration removes the field. */
export function merge(live: unknown, config: unknown, node: SchemaNode): unknown {
  if (config === undefined) return live;
  if (live === undefined || live === null || config === null || isLeaf(node)) return jsonClone(config);
  if (node.kind === 'list') {
    if (!Array.isArray(live) || !Array.isArray(config)) return jsonClone(config);
    const result = [...live];
    for (const item of config) {
      const pe = itemElement(node, item);
      const at = result.findIndex((i) => itemElement(node, i) === pe);
      if (at >= 0) result[at] = merge(result[at], item, node.items);
      else result.push(jsonClone(item));
    }
    return result;
  }
  if (!isPlainObject(live) || !isPlainObject(config)) return jsonClone(config);
  const result: Obj = { ...live };
  for (const [key, value] of Object.entries(config)) {
    const sub = childNode(node, key);
    if (!sub) continue;
    if (value === null) delete result[key];
    else setOwn(result, key, merge(result[key], value, sub));
  }
  return result;
}

/** Removes the fields at `paths` (and everything under them) from a value, in place. */
export function removePaths(value: unknown, paths: Iterable<FieldPath>, node: SchemaNode): void {
  for (const path of paths) removeOne(value, elements(path), node);
}

function removeOne(value: unknown, parts: string[], node: SchemaNode): void {
  if (parts.length === 0) return;
  const [head, ...rest] = parts;
  if (node.kind === 'list') {
    if (!Array.isArray(value)) return;
    const at = value.findIndex((item) => itemElement(node, item) === head);
    if (at < 0) return;
    if (rest.length === 0) value.splice(at, 1);
    else removeOne(value[at], rest, node.items);
    return;
  }
  if (!isPlainObject(value) || !head.startsWith('f:')) return;
  const key = head.slice(2);
  const sub = childNode(node, key);
  if (!sub) return;
  if (rest.length === 0) delete value[key];
  else removeOne(value[key], rest, sub);
}
