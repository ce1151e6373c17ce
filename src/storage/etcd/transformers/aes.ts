import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { ValueTransformer } from './value-transformer';

const GCM_NONCE = 12;
const GCM_TAG = 16;
const BLOCK = 16;
const SHORT = 'the stored data was shorter than the required size';

function aesAlgorithm(key: Buffer, mode: 'gcm' | 'cbc'): string {
  return `aes-${key.length * 8}-${mode}`;
}

/**
 * AES-GCM with a random 96-bit nonce: nonce, then ciphertext, then the 16-byte tag; the etcd key
 * is the additional authenticated data, so a value copied to another key does not decrypt.
 */
export function aesGcmTransformer(key: Buffer): ValueTransformer {
  const algorithm = aesAlgorithm(key, 'gcm') as 'aes-256-gcm';
  return {
    toStorage(data, etcdKey) {
      const nonce = randomBytes(GCM_NONCE);
      const cipher = createCipheriv(algorithm, key, nonce);
      cipher.setAAD(Buffer.from(etcdKey));
      const body = Buffer.concat([cipher.update(data), cipher.final()]);
      return Buffer.concat([nonce, body, cipher.getAuthTag()]);
    },
    fromStorage(data, etcdKey) {
      if (data.length < GCM_NONCE + GCM_TAG) throw new Error(SHORT);
      const decipher = createDecipheriv(algorithm, key, data.subarray(0, GCM_NONCE));
      decipher.setAAD(Buffer.from(etcdKey));
      decipher.setAuthTag(data.subarray(data.length - GCM_TAG));
      try {
        return { data: Buffer.concat([decipher.update(data.subarray(GCM_NONCE, data.length - GCM_TAG)), decipher.final()]), stale: false };
      } catch {
        throw new Error('cipher: message authentication failed');
      }
    },
  };
}

/** AES-CBC with a random IV and PKCS#7 padding: IV, then ciphertext. Not authenticated. */
export function aesCbcTransformer(key: Buffer): ValueTransformer {
  const algorithm = aesAlgorithm(key, 'cbc');
  return {
    toStorage(data) {
      const iv = randomBytes(BLOCK);
      const cipher = createCipheriv(algorithm, key, iv);
      return Buffer.concat([iv, cipher.update(data), cipher.final()]);
    },
    fromStorage(data) {
      if (data.length < BLOCK) throw new Error(SHORT);
      const body = data.subarray(BLOCK);
      if (body.length % BLOCK !== 0) throw new Error('the stored data is not a multiple of the block size');
      const decipher = createDecipheriv(algorithm, key, data.subarray(0, BLOCK));
      decipher.setAutoPadding(false);
      const plain = Buffer.concat([decipher.update(body), decipher.final()]);
      const pad = plain.length > 0 ? plain[plain.length - 1] : 0;
      if (pad === 0 || pad > plain.length) throw new Error('invalid PKCS7 data (empty or not padded)');
      for (let i = plain.length - pad; i < plain.length; i++) {
        if (plain[i] !== pad) throw new Error('invalid padding on input');
      }
      return { data: plain.subarray(0, plain.length - pad), stale: false };
    },
  };
}
