import path from 'node:path';
import { runWalk } from '../api/loop-slices';
import { isPlainObject } from '../api/types';
import { goJsonSyntaxErrorWalk } from '../codec/go-json-syntax';
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
  const data = decodeRawUrlBase64(value);
  let wire: unknown;
  try {
    wire = JSON.parse(data.toString('utf8'));
  } catch (err) {
    throw invalid(runWalk(goJsonSyntaxErrorWalk(data)) ?? (err as Error).message);
  }
  const decoded = unmarshalToken(wire);
  if (typeof decoded === 'string') throw invalid(decoded);
  const { v, rv, start } = decoded;
  if (v !== TOKEN_VERSION) throw new StorageError('InvalidContinue', `${INVALID}: server does not recognize this encoded version ${v}`);
  if (rv === 0) throw invalid('incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  if (start.length === 0) throw invalid('encoded start key empty (version meta.k8s.io/v1)');
  // Path traversal: the key must already be clean, so it cannot climb above the list's prefix.
  const key = start.startsWith('/') ? start : `/${start}`;
  if (goPathClean(key) !== key) throw invalid(start);
  return { revision: rv, startKey: key.slice(1) };
}

const TOKEN_FIELDS: (keyof WireToken)[] = ['v', 'rv', 'start'];

/**
 * json.Unmarshal into storage's continueToken: a key names a field exactly or else ignoring case,
 * null leaves a field as it is, and a value of the wrong type is the first UnmarshalTypeError in
 * the document (the rest still decode, as Go goes on past one).
 */
function unmarshalToken(wire: unknown): WireToken | string {
  const token: WireToken = { v: '', rv: 0, start: '' };
  if (wire === null) return token;
  if (!isPlainObject(wire)) return `json: cannot unmarshal ${goJsonKind(wire)} into Go value of type storage.continueToken`;
  let typeError: string | null = null;
  for (const [key, value] of Object.entries(wire)) {
    const name = TOKEN_FIELDS.find((f) => f === key) ?? TOKEN_FIELDS.find((f) => f === key.toLowerCase());
    if (name === undefined || value === null) continue;
    if (name === 'rv') {
      if (typeof value === 'number' && Number.isSafeInteger(value)) token.rv = value;
      else
        typeError ??= `json: cannot unmarshal ${typeof value === 'number' ? `number ${value}` : goJsonKind(value)} into Go struct field continueToken.rv of type int64`;
    } else if (typeof value === 'string') token[name] = value;
    else typeError ??= `json: cannot unmarshal ${goJsonKind(value)} into Go struct field continueToken.${name} of type string`;
  }
  return typeError ?? token;
}

/** UnmarshalTypeError's name for what a JSON value is. */
function goJsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'object' ? 'object' : typeof value;
}

/** Go's path.Clean for rooted paths: no ".", "..", empty elements or trailing slash. */
function goPathClean(p: string): string {
  const normalized = path.posix.normalize(p);
  return normalized.length > 1 && normalized.endsWith('/') ? normalized.slice(0, -1) : normalized;
}
