import type { ValueTransformer } from './value-transformer';

const ENCRYPTED_PREFIX = Buffer.from('k8s:enc:');

/** Stores values as they are; refuses to read a value that some provider encrypted. */
export const identityTransformer: ValueTransformer = {
  toStorage: (data) => data,
  fromStorage(data) {
    if (data.subarray(0, ENCRYPTED_PREFIX.length).equals(ENCRYPTED_PREFIX)) {
      throw new Error('identity transformer tried to read encrypted data');
    }
    return { data, stale: false };
  },
};
