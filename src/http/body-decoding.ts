import { DecodeError } from '../codec/decode-error';
import { decodeCbor } from '../codec/cbor';
import { decodeYaml } from '../codec/yaml';
import { duplicateFieldErrors } from './field-validation';

/** A YAML or CBOR request body to decode, and whether fieldValidation asks for its duplicate keys. */
export interface BodyDecodeJob {
  body: Uint8Array;
  encoding: 'yaml' | 'cbor';
  duplicates: boolean;
}

/** What a decoding gives back: the value and its duplicate-key errors, or why it failed. */
export type BodyDecodeResult = { value: unknown; duplicates: string[] } | { decodeError: string } | { error: string };

/** The decoding itself, in whichever thread runs it: what decodeObject did in one piece. */
export function decodeInThisThread(job: BodyDecodeJob): BodyDecodeResult {
  const body = Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength);
  try {
    const value = job.encoding === 'yaml' ? decodeYaml(body) : decodeCbor(body);
    return { value, duplicates: job.duplicates ? duplicateFieldErrors(body, job.encoding) : [] };
  } catch (err) {
    if (err instanceof DecodeError) return { decodeError: err.message };
    return { error: (err as Error).stack ?? String(err) };
  }
}
