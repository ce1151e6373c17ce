import { randomBytes } from 'node:crypto';
import nacl from 'tweetnacl';
import type { ValueTransformer } from './value-transformer';

const NONCE = nacl.secretbox.nonceLength;

/** XSalsa20-Poly1305 (NaCl secretbox) with a random 24-byte nonce in front. Not bound to the key. */
export function secretboxTransformer(key: Buffer): ValueTransformer {
  const secret = new Uint8Array(key);
  return {
    toStorage(data) {
      const nonce = randomBytes(NONCE);
      return Buffer.concat([nonce, Buffer.from(nacl.secretbox(new Uint8Array(data), new Uint8Array(nonce), secret))]);
    },
    fromStorage(data) {
      if (data.length < NONCE + nacl.secretbox.overheadLength) throw new Error('the stored data was shorter than the required size');
      const opened = nacl.secretbox.open(new Uint8Array(data.subarray(NONCE)), new Uint8Array(data.subarray(0, NONCE)), secret);
      if (!opened) throw new Error('output array was not large enough for encryption');
      return { data: Buffer.from(opened), stale: false };
    },
  };
}
