import { runWalk, runWalkInSlices, type Walk } from '../api/loop-slices';
import { DecodeError } from './decode-error';
import { goJsonSyntaxError } from './go-json-syntax';
import { withGoStrings } from './well-formed';

/** Characters a scan of a body's text reads between two yields (about 1 ms of a scan; a 3 MB body's scans took 15-40 ms each in one piece). */
export const CHARS_PER_YIELD = 64 * 1024;

export function decodeJson(body: Buffer): unknown {
  return parseJsonText(body.toString('utf8')).value;
}

/** A JSON text's value, and how many object members the text spells: a key written twice counts twice. */
export interface ParsedJson {
  value: unknown;
  members: number;
}

/** decodeJson of a text, with its members counted by the same scan that bounds its nesting. */
export function parseJsonText(text: string): ParsedJson {
  return runWalk(decodeJsonWalk(text));
}

/**
 * decodeJson of a body's text for a request: the nesting scan yields between slices; JSON.parse
 * itself cannot be cut (about 20-35 ms for 2 MB, bounded by the request size limit).
 */
export async function decodeJsonInSlices(text: string, slice: () => Promise<void>): Promise<unknown> {
  return (await runWalkInSlices(decodeJsonWalk(text), slice)).value;
}

function* decodeJsonWalk(text: string): Walk<ParsedJson> {
  const scan = yield* jsonScanWalk(text);
  if (scan.depth > MAX_NESTING_DEPTH) throw new DecodeError(`couldn't get version/kind; json parse error: exceeded max depth of ${MAX_NESTING_DEPTH}`);
  try {
    return { value: withGoStrings(text, JSON.parse(text)), members: scan.members };
  } catch (err) {
    throw new DecodeError(`couldn't get version/kind; json parse error: ${goJsonSyntaxError(text) ?? (err as Error).message}`);
  }
}

/** JSON as Go's encoder writes it: compact, or two-space indented when pretty; always newline-terminated. */
export function jsonText(value: unknown, pretty = false): string {
  return `${pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value)}\n`;
}

export function encodeJson(value: unknown, pretty = false): Buffer {
  return Buffer.from(jsonText(value, pretty));
}

/** Deeper documents are refused before anything walks them recursively. */
export const MAX_NESTING_DEPTH = 1000;

/** The deepest nesting of objects and arrays in a JSON text, counted without parsing it. */
export function jsonNestingDepth(text: string): number {
  return runWalk(jsonScanWalk(text)).depth;
}

/** jsonNestingDepth for a request: the scan yields between slices. */
export async function jsonNestingDepthInSlices(text: string, slice: () => Promise<void>): Promise<number> {
  return (await runWalkInSlices(jsonScanWalk(text), slice)).depth;
}

/** What one pass over a JSON text tells before it is parsed: its deepest nesting, and its object members (a colon outside strings). */
interface JsonScan {
  depth: number;
  members: number;
}

function* jsonScanWalk(text: string): Walk<JsonScan> {
  let depth = 0;
  let max = 0;
  let members = 0;
  let inString = false;
  let nextYield = CHARS_PER_YIELD;
  for (let i = 0; i < text.length; i++) {
    if (i >= nextYield) {
      nextYield = i + CHARS_PER_YIELD;
      yield;
    }
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x3a) members++;
    else if (c === 0x7b || c === 0x5b) max = Math.max(max, ++depth);
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return { depth: max, members };
}
