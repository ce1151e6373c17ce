import { DecodeError } from './decode-error';

export function decodeJson(body: Buffer): unknown {
  if (body.length === 0) throw new DecodeError("couldn't get version/kind; json parse error: unexpected end of JSON input");
  try {
    return JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new DecodeError(`couldn't get version/kind; json parse error: ${(err as Error).message}`);
  }
}

/** JSON as Go's encoder writes it: compact, or two-space indented when pretty; always newline-terminated. */
export function encodeJson(value: unknown, pretty = false): Buffer {
  return Buffer.from(`${pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value)}\n`);
}
