import { isPlainObject } from '../api/types';
import { runSteps, runStepsInSlices, type Steps } from '../api/loop-slices';
import { compareElements } from './path-order';

/**
 * Sets of field paths, as server-side apply tracks ownership. A path element is written as in
 * managedFields' FieldsV1: "f:name" (a field or map key), "k:{...}" (an item of a keyed list),
 * "v:<json>" (an item of a set), "i:<n>" (an item by index). A path is its elements joined by
 * SEP; a set keeps its paths as a trie of elements.
 */

const SEP = '\u0000';

export type FieldPath = string;

export const rootPath: FieldPath = '';

export function child(path: FieldPath, element: string): FieldPath {
  return path === '' ? element : `${path}${SEP}${element}`;
}

export function elements(path: FieldPath): string[] {
  return path === '' ? [] : path.split(SEP);
}

export function fieldElement(name: string): string {
  return `f:${name}`;
}

/** k:{"name":"c"}: the keys of a list item, as a JSON object with sorted keys. */
export function keyElement(keys: string[], item: Record<string, unknown>): string {
  const sorted = [...keys].sort();
  return `k:${JSON.stringify(Object.fromEntries(sorted.map((k) => [k, item[k]])))}`;
}

export function valueElement(value: unknown): string {
  return `v:${JSON.stringify(value)}`;
}

/** One node of a set's trie: a member when its path is in the set; children by path element. */
interface Node {
  member: boolean;
  children: Map<string, Node>;
}

/**
 * The children of every leaf: most nodes of a set are leaves, and a Map each made a 20,000-item
 * list's set mostly garbage. Never written to; setChild gives a node a map of its own first.
 */
const NO_CHILDREN: ReadonlyMap<string, Node> = new Map();

const newNode = (): Node => ({ member: false, children: NO_CHILDREN as Map<string, Node> });

function setChild(n: Node, key: string, c: Node): void {
  if (n.children === NO_CHILDREN) n.children = new Map();
  n.children.set(key, c);
}

/** Nodes toFieldsV1 fills by plain recursion before it leaves the rest to steps (most sets are far smaller). */
const RECURSED_NODES = 2048;

/** Whether a node holds a member at or under it (operations prune nodes that hold none). */
const live = (n: Node): boolean => n.member || n.children.size > 0;

/** `a` and `b` together; subtrees only one side has are shared, not copied. */
function unite(a: Node, b: Node): Node {
  if (a.children.size === 0) return a.member && !b.member ? { member: true, children: b.children } : b;
  if (b.children.size === 0) return b.member && !a.member ? { member: true, children: a.children } : a;
  const out: Node = { member: a.member || b.member, children: new Map(a.children) };
  for (const [k, c] of b.children) {
    const mine = a.children.get(k);
    out.children.set(k, mine ? unite(mine, c) : c);
  }
  return out;
}

/** `a` less `b`, or `a` and `b` when `keepCommon`: a new trie, null when nothing is left. */
function combine(a: Node, b: Node | undefined, keepCommon: boolean): Node | null {
  if (!b) return keepCommon ? null : a;
  // Nothing under b: a difference keeps a's subtree as it is, at most without its own member.
  if (!keepCommon && b.children.size === 0) {
    if (!(a.member && b.member)) return a;
    return a.children.size > 0 ? { member: false, children: a.children } : null;
  }
  const out: Node = { member: keepCommon ? a.member && b.member : a.member && !b.member, children: NO_CHILDREN as Map<string, Node> };
  for (const [k, c] of a.children) {
    const kept = combine(c, b.children.get(k), keepCommon);
    if (kept) setChild(out, k, kept);
  }
  return live(out) ? out : null;
}

/**
 * `n` without the subtrees at the members of `drop` (each goes with its own member), in one walk of
 * both tries: only the nodes on the way to a dropped subtree are new, and a parent left empty is
 * pruned (the caller sees a node that is not live).
 */
function withoutSubtrees(n: Node, drop: Node): Node {
  let out: Node | null = null;
  for (const [k, d] of drop.children) {
    const c = n.children.get(k);
    if (!c) continue;
    const rest = d.member ? null : withoutSubtrees(c, d);
    if (rest === c) continue;
    out ??= { member: n.member, children: new Map(n.children) };
    if (rest && live(rest)) out.children.set(k, rest);
    else out.children.delete(k);
  }
  return out ?? n;
}

function* membersOf(n: Node, prefix: FieldPath): Generator<FieldPath> {
  if (n.member && prefix !== '') yield prefix;
  for (const [k, c] of n.children) yield* membersOf(c, child(prefix, k));
}

function countOf(n: Node): number {
  let count = n.member ? 1 : 0;
  for (const c of n.children.values()) count += countOf(c);
  return count;
}

/** FieldsV1's key order: a member's own mark first, then its children's elements byte by byte. */
export function byFieldsV1Order(a: string, b: string): number {
  return a === '.' ? -1 : b === '.' ? 1 : a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A set of paths kept as a trie of path elements, as structured-merge-diff's fieldpath.Set is:
 * set operations walk only where the two sets differ and share the rest (a list of 20,000
 * containers is not copied for each union), and FieldsV1 is the trie written out. Sets share
 * subtrees, so `insert` is for building a new set only (compare, fieldSetOf, fromFieldsV1).
 */
export class FieldSet {
  private readonly root: Node;

  constructor(root: Node = newNode()) {
    this.root = root;
  }

  static of(paths: Iterable<FieldPath>): FieldSet {
    const set = new FieldSet();
    for (const p of paths) set.insert(p);
    return set;
  }

  get empty(): boolean {
    return this.root.children.size === 0;
  }

  /** Every path in the set (for the few callers that list them: conflicts, dropped fields). */
  get paths(): Set<FieldPath> {
    return new Set(membersOf(this.root, rootPath));
  }

  /**
   * The paths as fieldpath.Set.Iterate lists them: at each level the members first, then the
   * children's subtrees, each in path element order.
   */
  inIterationOrder(): FieldPath[] {
    const out: FieldPath[] = [];
    const walk = (n: Node, prefix: FieldPath): void => {
      const keys = [...n.children.keys()].sort(compareElements);
      for (const k of keys) if (n.children.get(k)!.member) out.push(child(prefix, k));
      for (const k of keys) {
        const c = n.children.get(k)!;
        if (c.children.size > 0) walk(c, child(prefix, k));
      }
    };
    walk(this.root, rootPath);
    return out;
  }

  get size(): number {
    return countOf(this.root) - (this.root.member ? 1 : 0);
  }

  private find(path: FieldPath): Node | undefined {
    let node: Node | undefined = this.root;
    if (path === '') return node;
    // The path's elements are walked in place: split into an array, they were most of a create's field bookkeeping.
    for (let start = 0; ;) {
      const end = path.indexOf(SEP, start);
      node = node.children.get(end === -1 ? path.slice(start) : path.slice(start, end));
      if (!node || end === -1) return node;
      start = end + 1;
    }
  }

  has(path: FieldPath): boolean {
    return path !== '' && (this.find(path)?.member ?? false);
  }

  /** The path itself or anything under it is in the set. */
  touches(path: FieldPath): boolean {
    const node = this.find(path);
    return node !== undefined && live(node);
  }

  insert(path: FieldPath): void {
    if (path === '') return;
    let node = this.root;
    for (let start = 0; ;) {
      const end = path.indexOf(SEP, start);
      const part = end === -1 ? path.slice(start) : path.slice(start, end);
      let next = node.children.get(part);
      if (!next) setChild(node, part, (next = newNode()));
      node = next;
      if (end === -1) break;
      start = end + 1;
    }
    node.member = true;
  }

  union(other: FieldSet): FieldSet {
    return new FieldSet(unite(this.root, other.root));
  }

  difference(other: FieldSet): FieldSet {
    return new FieldSet(combine(this.root, other.root, false) ?? newNode());
  }

  intersection(other: FieldSet): FieldSet {
    return new FieldSet(combine(this.root, other.root, true) ?? newNode());
  }

  /**
   * Drops every path equal to or under a member of `prefixes`; only the nodes on the way to them
   * are new. The prefixes are a set, built once by callers that filter many sets by them.
   */
  withoutPrefixes(prefixes: FieldSet): FieldSet {
    const root = withoutSubtrees(this.root, prefixes.root);
    return root === this.root ? this : new FieldSet(root);
  }

  /** Keeps only paths equal to or under one of `prefixes`. */
  onlyPrefixes(prefixes: FieldPath[]): FieldSet {
    let root = newNode();
    for (const prefix of prefixes) {
      const parts = elements(prefix);
      const node = this.find(prefix);
      if (!node || !live(node) || parts.length === 0) continue;
      let chain = node;
      for (let i = parts.length - 1; i >= 0; i--) chain = { member: false, children: new Map([[parts[i], chain]]) };
      root = unite(root, chain);
    }
    return new FieldSet(root);
  }

  /** The FieldsV1 tree: children nest, sorted; a member that also has children is marked ".". */
  toFieldsV1(): Record<string, unknown> {
    const [out, steps] = this.fieldsV1Steps();
    runSteps(steps);
    return out;
  }

  /** toFieldsV1, yielding to the event loop through `slice` while it writes a huge set (issue 25). */
  async toFieldsV1InSlices(slice: () => Promise<void>): Promise<Record<string, unknown>> {
    const [out, steps] = this.fieldsV1Steps();
    await runStepsInSlices(steps, slice);
    return out;
  }

  /**
   * Each step writes one node's keys in order (so the tree's keys keep it) and fills its children:
   * at once while RECURSED_NODES last, then as steps of their own, so that a huge set is written in slices.
   */
  private fieldsV1Steps(): [Record<string, unknown>, Steps] {
    const steps: Steps = [];
    let recursions = RECURSED_NODES;
    const fill = (node: Node, out: Record<string, unknown>): void => {
      if (node !== this.root && node.member) out['.'] = {};
      for (const key of [...node.children.keys()].sort(byFieldsV1Order)) {
        const next = node.children.get(key)!;
        const written: Record<string, unknown> = {};
        out[key] = written;
        if (next.children.size === 0) continue;
        if (recursions-- > 0) fill(next, written);
        else steps.push(() => fill(next, written));
      }
    };
    const out: Record<string, unknown> = {};
    fill(this.root, out);
    return [out, steps];
  }

  static fromFieldsV1(tree: unknown): FieldSet {
    const read = (node: Record<string, unknown>, into: Node): void => {
      for (const [key, value] of Object.entries(node)) {
        if (key === '.' || !isPlainObject(value)) continue;
        const next = newNode();
        next.member = Object.keys(value).length === 0 || '.' in value;
        read(value, next);
        if (live(next)) setChild(into, key, next);
      }
    };
    const root = newNode();
    if (isPlainObject(tree)) read(tree, root);
    return new FieldSet(root);
  }
}
