import { DecodeError } from './decode-error';

export function decodeJson(body: Buffer): unknown {
  if (body.length === 0) throw new DecodeError("couldn't get version/kind; json parse error: unexpected end of JSON input");
  const text = body.toString('utf8');
  if (jsonNestingDepth(text) > MAX_NESTING_DEPTH)
    throw new DecodeError(`couldn't get version/kind; json parse error: exceeded max depth of ${MAX_NESTING_DEPTH}`);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new DecodeError(`couldn't get version/kind; json parse error: ${(err as Error).message}`);
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
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) max = Math.max(max, ++depth);
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}
