import { RecentlySeen } from './recently-seen';

/**
 * managedFields' FieldsV1 trees decoded from Protobuf, shared between objects: equal bytes give one
 * tree, and trees that differ share their equal subtrees. Objects made from one template by one
 * manager own nearly the same fields: a pod's tree differs from its siblings' only in the name of
 * its service account token volume, so the tree (about 95 of a cached pod's 135 objects) is one
 * path of objects per pod over subtrees every pod shares. kube keeps FieldsV1 as raw bytes per
 * object; sharing decoded trees saves more where they repeat and lets every encoder and the field
 * manager keep reading plain objects.
 *
 * A shared tree is frozen: one reader changing it in place would change it for every object.
 */

/** Whole trees by their raw bytes as a latin1 string (one char per byte, so equal keys are equal bytes). */
const shared = new RecentlySeen<unknown>(1024);
/** Subtrees by their JSON text, as the bytes held it. */
const subtrees = new RecentlySeen<object>(8192);
/**
 * Only subtrees with at most this much text are remembered: the texts are the keys, and a large
 * subtree is the kind that differs per object (a pod's spec, which holds its token volume's
 * name). Its small parts are shared all the same.
 */
const SUBTREE_MAX_CHARS = 512;

const OPEN_OBJECT = 0x7b; // {
const CLOSE_OBJECT = 0x7d; // }
const OPEN_LIST = 0x5b; // [
const CLOSE_LIST = 0x5d; // ]
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** For each `{` or `[` of a JSON text, the index of the bracket that closes it (strings skipped). */
function closingBrackets(text: string): Int32Array {
  const closing = new Int32Array(text.length);
  const open: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      for (i++; text.charCodeAt(i) !== QUOTE; i++) if (text.charCodeAt(i) === BACKSLASH) i++;
    } else if (c === OPEN_OBJECT || c === OPEN_LIST) {
      open.push(i);
    } else if (c === CLOSE_OBJECT || c === CLOSE_LIST) {
      closing[open.pop()!] = i;
    }
  }
  return closing;
}

/**
 * Reads the JSON tree whose text is `text` (already known to be valid JSON): each object or list
 * in it is one seen before with the same text where there is one, else a new one, frozen and
 * remembered. Read from the root down, so a tree that differs from its siblings' in one leaf
 * builds only the path to that leaf; the rest is found whole.
 */
class SubtreeReader {
  private readonly closing: Int32Array;

  constructor(private readonly text: string) {
    this.closing = closingBrackets(text);
  }

  /** The value whose text starts at `start` (an object or list), shared when seen before. */
  container(start: number): object {
    const end = this.closing[start] + 1;
    const small = end - start <= SUBTREE_MAX_CHARS;
    const key = small ? this.text.slice(start, end) : '';
    const seen = small ? subtrees.get(key) : undefined;
    if (seen !== undefined) return seen;
    const value = this.text.charCodeAt(start) === OPEN_OBJECT ? this.object(start, end) : this.list(start, end);
    Object.freeze(value);
    // A copy of the slice: a sliced string would keep the whole text alive as long as it is remembered.
    if (small) subtrees.set(Buffer.from(key).toString(), value);
    return value;
  }

  private object(start: number, end: number): Record<string, unknown> {
    const node: Record<string, unknown> = {};
    let i = this.skipSpace(start + 1);
    while (i < end - 1) {
      const keyEnd = this.stringEnd(i);
      const name = JSON.parse(this.text.slice(i, keyEnd)) as string;
      i = this.skipSpace(this.skipSpace(keyEnd) + 1);
      const [value, next] = this.value(i);
      node[name] = value;
      i = this.skipSpace(this.skipSpace(next) + 1);
    }
    return node;
  }

  private list(start: number, end: number): unknown[] {
    const items: unknown[] = [];
    let i = this.skipSpace(start + 1);
    while (i < end - 1) {
      const [value, next] = this.value(i);
      items.push(value);
      i = this.skipSpace(this.skipSpace(next) + 1);
    }
    return items;
  }

  /** The value at `i` and the index just after it. */
  private value(i: number): [unknown, number] {
    const c = this.text.charCodeAt(i);
    if (c === OPEN_OBJECT || c === OPEN_LIST) return [this.container(i), this.closing[i] + 1];
    let end = c === QUOTE ? this.stringEnd(i) : i;
    if (c !== QUOTE) while (end < this.text.length && !',}] \t\r\n'.includes(this.text[end])) end++;
    return [JSON.parse(this.text.slice(i, end)), end];
  }

  /** The index just after the string that starts at `i`. */
  private stringEnd(i: number): number {
    for (i++; this.text.charCodeAt(i) !== QUOTE; i++) if (this.text.charCodeAt(i) === BACKSLASH) i++;
    return i + 1;
  }

  private skipSpace(i: number): number {
    while (i < this.text.length && ' \t\r\n'.includes(this.text[i])) i++;
    return i;
  }
}

/** The tree of FieldsV1's raw JSON bytes: the same frozen object for equal bytes, shared subtrees for others. */
export function sharedFieldsV1(raw: Buffer): unknown {
  const key = raw.toString('latin1');
  let tree = shared.get(key);
  if (tree === undefined) {
    const text = raw.toString('utf8');
    // JSON.parse first: it checks the text, which the reader then trusts.
    const parsed: unknown = JSON.parse(text);
    const start = text.search(/\S/);
    tree = typeof parsed === 'object' && parsed !== null ? new SubtreeReader(text).container(start) : parsed;
    shared.set(key, tree);
  }
  return tree;
}
