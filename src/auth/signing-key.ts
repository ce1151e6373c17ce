import { randomBytes } from 'node:crypto';
import type { KV } from '../storage/etcd/kv';

/** The etcd key, under the prefix, of the key kapi signs service account tokens with. */
export function signingKeyPath(etcdPrefix: string): string {
  return `${etcdPrefix}/kapi/serviceaccount-signing-key`;
}

/**
 * The HS256 key of this cluster: kept in etcd so every kapi on the same etcd prefix (and every
 * restart) signs and verifies with the same key; the first one to start creates it, a guarded
 * create settling a race between two.
 */
export async function loadSigningKey(kv: KV, etcdPrefix: string): Promise<Buffer> {
  const key = signingKeyPath(etcdPrefix);
  const existing = await kv.get(key);
  if (existing.kv) return existing.kv.value;
  const fresh = randomBytes(32);
  const written = await kv.create(key, fresh);
  if (written.ok) return fresh;
  if (!written.current) throw new Error(`cannot create the service account signing key at ${key}`);
  return written.current.value;
}
