import type { KubeObject } from '../../src/api/types';
import { StorageCodec } from '../../src/storage/etcd/storage-codec';
import type { RawEtcd } from './etcd-keys';

// Apart from RawEtcd: the codec loads kapi's Protobuf schemas, seconds of CPU in each jest worker
// that most users of RawEtcd (key listings) do not need.

/** The object stored under a key, decoded from whichever encoding it is in (JSON or kube's Protobuf). */
export async function storedObject(etcd: RawEtcd, key: string): Promise<KubeObject | null> {
  const value = await etcd.get(key);
  return value && new StorageCodec().decode(value);
}
