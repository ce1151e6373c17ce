/**
 * Turns the bytes of a stored value into what etcd holds and back, as kube-apiserver's
 * value.Transformer does. `key` is the full etcd key, the authenticated data of AEAD ciphers.
 */
export interface ValueTransformer {
  toStorage(data: Buffer, key: string): Buffer;
  /** `stale`: the value was not written by the provider that writes now (key rotation). */
  fromStorage(data: Buffer, key: string): { data: Buffer; stale: boolean };
}

/** A provider's transformer behind the prefix it writes, e.g. `k8s:enc:aesgcm:v1:key1:`. */
export interface PrefixedTransformer {
  prefix: Buffer;
  transformer: ValueTransformer;
}

const NO_MATCH = 'no matching prefix found';

/**
 * The first provider writes; reading tries every provider whose prefix matches, in order, and a
 * value read by any but the first is stale. An empty prefix (identity) that fails is skipped.
 */
export function prefixTransformers(providers: PrefixedTransformer[]): ValueTransformer {
  return {
    toStorage(data, key) {
      const first = providers[0];
      return Buffer.concat([first.prefix, first.transformer.toStorage(data, key)]);
    },
    fromStorage(data, key) {
      const errors: string[] = [];
      for (const [i, { prefix, transformer }] of providers.entries()) {
        if (!data.subarray(0, prefix.length).equals(prefix)) continue;
        try {
          const result = transformer.fromStorage(data.subarray(prefix.length), key);
          return { data: result.data, stale: result.stale || i !== 0 };
        } catch (err) {
          if (prefix.length > 0) errors.push((err as Error).message);
        }
      }
      if (errors.length === 1) throw new Error(errors[0]);
      if (errors.length > 1) throw new Error(`[${errors.join(', ')}]`);
      throw new Error(NO_MATCH);
    },
  };
}
