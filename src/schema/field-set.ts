import { isPlainObject } from '../api/types';

/**
 * Sets of field paths, as server-side apply tracks ownership. A path element is written as in
 * managedFields' FieldsV1: "f:name" (a field or map key), "k:{...}" (an item of a keyed list),
 * "v:<json>" (an item of a set), "i:<n>" (an item by index). A path is its elements joined by
 * SEP; a set is a plain Set of such paths, so union and difference are what they look like.
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

export class FieldSet {
  constructor(readonly paths: Set<FieldPath> = new Set()) {}

  static of(paths: Iterable<FieldPath>): FieldSet {
    return new FieldSet(new Set(paths));
  }

  get empty(): boolean {
    return this.paths.size === 0;
  }

  has(path: FieldPath): boolean {
    return this.paths.has(path);
  }

  /** The path itself or anything under it is in the set. */
  touches(path: FieldPath): boolean {
    if (this.paths.has(path)) return true;
    const prefix = `${path}${SEP}`;
    for (const p of this.paths) if (p.startsWith(prefix)) return true;
    return false;
  }

  insert(path: FieldPath): void {
    this.paths.add(path);
  }

  union(other: FieldSet): FieldSet {
    const out = new Set(this.paths);
    for (const p of other.paths) out.add(p);
    return new FieldSet(out);
  }

  difference(other: FieldSet): FieldSet {
    return this.filtered((p) => !other.paths.has(p));
  }

  intersection(other: FieldSet): FieldSet {
    return this.filtered((p) => other.paths.has(p));
  }

  /** Drops every path equal to or under one of `prefixes`. */
  withoutPrefixes(prefixes: FieldPath[]): FieldSet {
    const under = underAny(prefixes);
    return this.filtered((p) => !under(p));
  }

  /** Keeps only paths equal to or under one of `prefixes`. */
  onlyPrefixes(prefixes: FieldPath[]): FieldSet {
    return this.filtered(underAny(prefixes));
  }

  /** Sets of a hundred thousand paths (a list of 20,000 containers) are copied several times per write: no intermediate arrays. */
  private filtered(keep: (p: FieldPath) => boolean): FieldSet {
    const out = new Set<FieldPath>();
    for (const p of this.paths) if (keep(p)) out.add(p);
    return new FieldSet(out);
  }

  /** The FieldsV1 tree: children nest; a member that also has children is marked ".". */
  toFieldsV1(): Record<string, unknown> {
    const root: Record<string, Record<string, unknown>> = {};
    for (const path of this.paths) {
      let node: Record<string, unknown> = root;
      for (const part of elements(path)) node = (node[part] ??= {}) as Record<string, unknown>;
    }
    const mark = (node: Record<string, unknown>, prefix: FieldPath): void => {
      for (const key of Object.keys(node)) {
        if (key === '.') continue;
        const path = child(prefix, key);
        const childNode = node[key] as Record<string, unknown>;
        if (Object.keys(childNode).length > 0 && this.paths.has(path)) childNode['.'] = {};
        mark(childNode, path);
      }
    };
    mark(root, rootPath);
    return sortTree(root);
  }

  static fromFieldsV1(tree: unknown): FieldSet {
    const set = new FieldSet();
    const walk = (node: unknown, prefix: FieldPath): void => {
      if (!isPlainObject(node)) return;
      const keys = Object.keys(node).filter((k) => k !== '.');
      if (prefix !== '' && (keys.length === 0 || '.' in node)) set.insert(prefix);
      for (const key of keys) walk(node[key], child(prefix, key));
    };
    walk(tree, rootPath);
    return set;
  }
}

/** Whether a path is one of `prefixes` or under one. */
function underAny(prefixes: FieldPath[]): (p: FieldPath) => boolean {
  const parents = prefixes.map((q) => `${q}${SEP}`);
  return (p) => prefixes.includes(p) || parents.some((q) => p.startsWith(q));
}

function sortTree(node: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(node).sort((a, b) => (a === '.' ? -1 : b === '.' ? 1 : a < b ? -1 : a > b ? 1 : 0))) {
    out[key] = sortTree(node[key] as Record<string, unknown>);
  }
  return out;
}
