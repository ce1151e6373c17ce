import { runWalkInSlices, type Walk } from '../api/loop-slices';
import { jsonText } from './json';
import { childOf, isContainer, keysOf, LARGE, markPieces, smallInOneGo, type Container } from './large-values';

/**
 * An object's JSON text for a request, in slices: the entries of its large lists and maps (a
 * Deployment's 20,000 containers, their managed fields) are encoded one by one, a few per slice,
 * and everything else whole by JSON.stringify. The bytes are jsonText's.
 */

/** Entries encoded between two yields of the walk. */
const ENTRIES_PER_YIELD = 64;

/** The text written so far, turned into UTF-8 bytes a slice at a time (one conversion of the whole 6 MB took tens of ms). */
class Pieces {
  private texts: string[] = [];
  private readonly bytes: Buffer[] = [];

  push(text: string): void {
    this.texts.push(text);
  }

  flush(): void {
    if (this.texts.length === 0) return;
    this.bytes.push(Buffer.from(this.texts.join('')));
    this.texts = [];
  }

  whole(): Buffer {
    this.flush();
    return Buffer.concat(this.bytes);
  }
}

/** JSON.stringify's text of one value at a nesting depth (its lines indented to that depth when pretty). */
function stringified(value: unknown, indent: string): string | undefined {
  if (indent === '') return JSON.stringify(value);
  const text = JSON.stringify(value, null, 2) as string | undefined;
  // JSON escapes newlines inside strings: every newline in the text is between tokens.
  return text?.replaceAll('\n', `\n${indent}`);
}

function* writeContainer(value: Container, marked: Set<Container>, out: Pieces, pretty: boolean, indent: string): Walk<void> {
  const list = Array.isArray(value);
  const inner = pretty ? `${indent}  ` : '';
  const keys = keysOf(value);
  const large = keys.length >= LARGE;
  out.push(list ? '[' : '{');
  let first = true;
  let n = 0;
  for (const key of keys) {
    const child = childOf(value, key);
    const text = isContainer(child) && marked.has(child) ? null : stringified(child, inner);
    // JSON.stringify leaves out a field it cannot encode (undefined) and writes such a list item as null.
    if (text === undefined && !list) continue;
    out.push(`${first ? '' : ','}${pretty ? `\n${inner}` : ''}`);
    first = false;
    if (!list) out.push(`${JSON.stringify(key)}:${pretty ? ' ' : ''}`);
    if (text === null) yield* writeContainer(child as Container, marked, out, pretty, inner);
    else out.push(text ?? 'null');
    if (large && ++n % ENTRIES_PER_YIELD === 0) {
      out.flush();
      yield;
    }
  }
  out.push(`${pretty && !first ? `\n${indent}` : ''}${list ? ']' : '}'}`);
}

function* jsonWalk(value: unknown, pretty: boolean): Walk<Buffer | string> {
  const marked = new Set<Container>();
  if (!isContainer(value) || !(yield* markPieces(value, marked))) return jsonText(value, pretty);
  const out = new Pieces();
  yield* writeContainer(value, marked, out, pretty, '');
  out.push('\n');
  return out.whole();
}

/** jsonText's text (its UTF-8 bytes when it was taken apart), encoded in slices between other requests. */
export function jsonInSlices(value: unknown, pretty: boolean, slice: () => Promise<void>): Promise<Buffer | string> {
  // Most answers hold nothing large: checked in one go, no generator per container (a pod's answer 84 µs before, 19 after).
  if (smallInOneGo(value)) return Promise.resolve(jsonText(value, pretty));
  return runWalkInSlices(jsonWalk(value, pretty), slice);
}
