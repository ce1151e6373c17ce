import { StorageError } from './storage-error';

/** The opaque `continue` value of a chunked list: the list's revision and the key to resume at. */
export interface ContinueToken {
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

export function encodeContinue(token: ContinueToken): string {
  const wire: WireToken = { v: TOKEN_VERSION, rv: token.revision, start: token.startKey };
  return Buffer.from(JSON.stringify(wire)).toString('base64url');
}

export function decodeContinue(value: string): ContinueToken {
  let wire: Partial<WireToken>;
  try {
    wire = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Partial<WireToken>;
  } catch {
    throw new StorageError('InvalidContinue', 'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  if (typeof wire !== 'object' || wire === null || wire.v !== TOKEN_VERSION) {
    throw new StorageError('InvalidContinue', 'continue key is not valid: server does not recognize this encoded version');
  }
  if (typeof wire.rv !== 'number' || !Number.isSafeInteger(wire.rv) || wire.rv <= 0) {
    throw new StorageError('InvalidContinue', 'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  if (typeof wire.start !== 'string' || wire.start.length === 0 || wire.start.startsWith('/') || wire.start.includes('..')) {
    throw new StorageError('InvalidContinue', 'continue key is not valid: encoded start key is not valid');
  }
  return { revision: wire.rv, startKey: wire.start };
}
