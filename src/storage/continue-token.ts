import path from 'node:path';
import { StorageError } from './storage-error';

/** The opaque `continue` value of a chunked list: the list's revision and the key to resume at. */
export interface ContinueToken {
  /** The list's revision; negative continues at the latest (after the original was compacted away). */
  revision: number;
  /** The next key, relative to the list's prefix. */
  startKey: string;
}

interface WireToken {
  v: string;
  rv: number;
  start: string;
}

const TOKEN_VERSION = 'meta.k8s.io/v1';

/** apiserver's storage.ErrGenericInvalidKey; the other errors extend its text. */
const INVALID = 'continue key is not valid';

function invalid(detail: string): StorageError {
  return new StorageError('InvalidContinue', detail ? `${INVALID}: ${detail}` : INVALID);
}

export function encodeContinue(token: ContinueToken): string {
  const wire: WireToken = { v: TOKEN_VERSION, rv: token.revision, start: token.startKey };
  return Buffer.from(JSON.stringify(wire)).toString('base64url');
}

/** base64.RawURLEncoding.DecodeString: the URL alphabet, no padding. */
function decodeRawUrlBase64(value: string): Buffer {
  const bad = value.search(/[^A-Za-z0-9_-]/);
  if (bad >= 0) throw invalid(`illegal base64 data at input byte ${bad}`);
  if (value.length % 4 === 1) throw invalid(`illegal base64 data at input byte ${value.length - 1}`);
  return Buffer.from(value, 'base64url');
}

/** storage.DecodeContinue, with its error texts. */
export function decodeContinue(value: string): ContinueToken {
  let wire: unknown;
  try {
    wire = JSON.parse(decodeRawUrlBase64(value).toString('utf8'));
  } catch (err) {
    if (err instanceof StorageError) throw err;
    throw invalid((err as Error).message);
  }
  if (typeof wire !== 'object' || wire === null || Array.isArray(wire)) throw invalid('json: cannot unmarshal into Go value of type storage.continueToken');
  const { v = '', rv = 0, start = '' } = wire as Partial<WireToken>;
  if (v !== TOKEN_VERSION) {
    throw new StorageError('InvalidContinue', `${INVALID}: server does not recognize this encoded version ${String(v)}`);
  }
  if (typeof rv !== 'number' || !Number.isSafeInteger(rv))
    throw invalid(`json: cannot unmarshal ${JSON.stringify(rv)} into Go struct field continueToken.rv of type int64`);
  if (rv === 0) throw invalid('incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (typeof start !== 'string') throw invalid('json: cannot unmarshal into Go struct field continueToken.start of type string');
  if (start.length === 0) throw invalid('encoded start key empty (version meta.k8s.io/v1)');
  // Path traversal: the key must already be clean, so it cannot climb above the list's prefix.
  const key = start.startsWith('/') ? start : `/${start}`;
  if (goPathClean(key) !== key) throw invalid(start);
  return { revision: rv, startKey: key.slice(1) };
}

/** Go's path.Clean for rooted paths: no ".", "..", empty elements or trailing slash. */
function goPathClean(p: string): string {
  const normalized = path.posix.normalize(p);
  return normalized.length > 1 && normalized.endsWith('/') ? normalized.slice(0, -1) : normalized;
}
