import type { BatchedCreate, BatchWriter, KvCreateBatch, WriteResult } from './kv';

/**
 * Creates a caller lets share etcd transactions, and so revisions: the start's bootstrap objects,
 * sent together instead of one transaction each. The creates that reach the KV in one turn of the
 * event loop go out together; each resolves as it would alone (a key that exists fails only its
 * own create). Only for the server's own writes: a batched create does not follow a signal.
 */
export class CreateBatch implements KvCreateBatch {
  private readonly pending = new Map<BatchWriter, BatchedCreate[]>();

  join(writer: BatchWriter, key: string, value: Buffer): Promise<WriteResult> {
    return new Promise((resolve, reject) => {
      let creates = this.pending.get(writer);
      if (!creates) {
        const joined: BatchedCreate[] = (creates = []);
        this.pending.set(writer, joined);
        setImmediate(() => {
          this.pending.delete(writer);
          writer.createBatched(joined).catch((err: unknown) => {
            for (const create of joined) create.reject(err);
          });
        });
      }
      creates.push({ key, value, resolve, reject });
    });
  }
}

/** etcd's default --max-txn-ops: the operations one transaction may hold in each of its lists. */
export const ETCD_DEFAULT_MAX_TXN_OPS = 128;

/** A batch cut into transactions etcd takes: at most --max-txn-ops writes, and under --max-request-bytes (keys twice: compare and put). */
export function transactionsOf(creates: readonly BatchedCreate[], maxRequestBytes: number): BatchedCreate[][] {
  const txns: BatchedCreate[][] = [];
  let current: BatchedCreate[] = [];
  let bytes = 0;
  for (const create of creates) {
    const size = create.value.length + 2 * Buffer.byteLength(create.key) + 64;
    if (current.length > 0 && (current.length === ETCD_DEFAULT_MAX_TXN_OPS || bytes + size > maxRequestBytes)) {
      txns.push(current);
      current = [];
      bytes = 0;
    }
    current.push(create);
    bytes += size;
  }
  if (current.length > 0) txns.push(current);
  return txns;
}
