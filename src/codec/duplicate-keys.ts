import { EVENT_MAPPING, EVENT_POP, EVENT_SCALAR, EVENT_SEQUENCE, getScalarValue, parseEvents } from 'js-yaml';
import { runWalk, type Walk } from '../api/loop-slices';
import { CHARS_PER_YIELD } from './scan-slice';
import { firstYamlDocument } from './yaml-first-document';

/** Keys written twice in one object: what a strict decoder reports and a lenient one silently overwrites. */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** One open object (its keys so far) or array (its element count) during a scan. */
interface OpenValue {
  keys: Set<string> | null;
  /** The object's current key, or the array's current index. */
  at: string | number;
}

function pathOf(stack: OpenValue[], last: string): string {
  let path = '';
  for (const open of stack) {
    if (open.keys === null) path += `[${open.at as number}]`;
    else if (open !== stack[stack.length - 1]) path += path ? `.${open.at as string}` : (open.at as string);
  }
  return path ? `${path}.${last}` : last;
}

/**
 * Paths of repeated keys in a JSON text, e.g. "metadata.name". Meant for text that has parsed;
 * on anything else it stops at the end of the input rather than trust its shape. One pass over
 * the characters: a path is only spelled out for a key that repeats.
 */
export function jsonDuplicateFields(text: string): string[] {
  return runWalk(jsonDuplicateFieldsWalk(text));
}

/** jsonDuplicateFields as a walk that yields every CHARS_PER_YIELD characters (a 3 MB body's scan took 15-37 ms in one piece). */
export function* jsonDuplicateFieldsWalk(text: string): Walk<string[]> {
  const found: string[] = [];
  let nextYield = CHARS_PER_YIELD;
  const stack: OpenValue[] = [];
  // Inside an object, every other string is a key: the one after '{' or ','.
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    if (i >= nextYield) {
      nextYield = i + CHARS_PER_YIELD;
      yield;
    }
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      let escaped = false;
      for (i++; i < text.length && text.charCodeAt(i) !== QUOTE; i++) {
        if (text.charCodeAt(i) === BACKSLASH) {
          escaped = true;
          i++;
        }
      }
      if (i >= text.length) break;
      const top = stack[stack.length - 1];
      if (!expectKey || top?.keys == null) continue;
      expectKey = false;
      const key = escaped ? (JSON.parse(text.slice(start, i + 1)) as string) : text.slice(start + 1, i);
      if (top.keys.has(key)) found.push(pathOf(stack, key));
      top.keys.add(key);
      top.at = key;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      stack.push(c === OPEN_OBJECT ? { keys: new Set(), at: '' } : { keys: null, at: 0 });
      expectKey = c === OPEN_OBJECT;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      stack.pop();
    } else if (c === 0x2c) {
      const top = stack[stack.length - 1];
      expectKey = top?.keys != null;
      if (top?.keys === null) top.at = (top.at as number) + 1;
    }
  }
  return found;
}

/** How many members the objects of a parsed JSON value hold. */
function membersOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let n = 0;
  if (Array.isArray(value)) {
    for (const item of value) n += membersOf(item);
    return n;
  }
  for (const key in value) n += 1 + membersOf((value as Record<string, unknown>)[key]);
  return n;
}

/**
 * Whether a JSON text repeats no key, from its parse: JSON.parse keeps one member per key of an
 * object, so when the parsed value holds as many members as the text spells (`members`, counted by
 * the scan before the parse) none was written twice, and the text need not be scanned again. Only
 * for a value just parsed, before anything adds to it.
 */
export function repeatsNoKey(value: unknown, members: number): boolean {
  return membersOf(value) === members;
}

export interface YamlDuplicate {
  line: number;
  key: string;
}

/** Repeated mapping keys in a YAML text's first document, with their 1-based lines, as go-yaml's UnmarshalStrict reports them. */
export function yamlDuplicateKeys(stream: string): YamlDuplicate[] {
  const text = firstYamlDocument(stream);
  const found: YamlDuplicate[] = [];
  // Each open collection: for mappings, the keys seen and whether the next scalar is a key.
  const stack: { keys: Set<string> | null; expectKey: boolean }[] = [];
  const lineOf = (offset: number): number => text.slice(0, offset).split('\n').length;
  const consumed = (): void => {
    const top = stack[stack.length - 1];
    if (top?.keys) top.expectKey = !top.expectKey;
  };
  for (const event of parseEvents(text, {})) {
    if (event.type === EVENT_MAPPING || event.type === EVENT_SEQUENCE) {
      // A collection in a value position consumes that value.
      const top = stack[stack.length - 1];
      if (top?.keys && !top.expectKey) top.expectKey = true;
      else if (top?.keys) top.expectKey = false;
      stack.push({ keys: event.type === EVENT_MAPPING ? new Set() : null, expectKey: true });
    } else if (event.type === EVENT_POP) {
      stack.pop();
    } else if (event.type === EVENT_SCALAR) {
      const top = stack[stack.length - 1];
      if (top?.keys && top.expectKey) {
        const key = String(getScalarValue(text, event));
        if (top.keys.has(key)) found.push({ line: lineOf((event as { valueStart: number }).valueStart), key });
        top.keys.add(key);
      }
      consumed();
    } else {
      consumed();
    }
  }
  return found;
}
