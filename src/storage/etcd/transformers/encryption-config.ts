import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { aesCbcTransformer, aesGcmTransformer } from './aes';
import { identityTransformer } from './identity';
import { secretboxTransformer } from './secretbox';
import { prefixTransformers, type PrefixedTransformer, type ValueTransformer } from './value-transformer';

/** A malformed --encryption-provider-config: the message says where and why. */
export class EncryptionConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EncryptionConfigError';
  }
}

/** The transformer of a group-resource ("secrets", "deployments.apps"); undefined stores plain values. */
export type TransformerLookup = (group: string, resource: string) => ValueTransformer | undefined;

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const KEY_SIZES: Record<string, number[]> = { aescbc: [16, 24, 32], aesgcm: [16, 24, 32], secretbox: [32] };

function fail(path: string, message: string): never {
  throw new EncryptionConfigError(`${path}: ${message}`);
}

function keyed(kind: 'aescbc' | 'aesgcm' | 'secretbox', config: unknown, path: string): PrefixedTransformer[] {
  const keys = isObj(config) ? config.keys : undefined;
  if (!Array.isArray(keys) || keys.length === 0) fail(`${path}.keys`, 'Required value: keys must contain at least one key');
  const names = new Set<string>();
  return keys.map((k, i) => {
    const at = `${path}.keys[${i}]`;
    if (!isObj(k) || typeof k.name !== 'string' || k.name === '') fail(`${at}.name`, 'Required value: key name is required');
    if (k.name.includes(':')) fail(`${at}.name`, `Invalid value: "${k.name}": key name must not contain ":"`);
    if (names.has(k.name)) fail(`${at}.name`, `Duplicate value: "${k.name}"`);
    names.add(k.name);
    if (typeof k.secret !== 'string' || k.secret === '') fail(`${at}.secret`, 'Required value: secret is required');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(k.secret)) fail(`${at}.secret`, 'Invalid value: "REDACTED": secrets must be base64 encoded');
    const secret = Buffer.from(k.secret, 'base64');
    if (!KEY_SIZES[kind].includes(secret.length)) {
      fail(
        `${at}.secret`,
        `Invalid value: "REDACTED": secret is not of the expected length, got ${secret.length}, expected one of [${KEY_SIZES[kind].join(' ')}]`,
      );
    }
    const transformer = kind === 'aesgcm' ? aesGcmTransformer(secret) : kind === 'aescbc' ? aesCbcTransformer(secret) : secretboxTransformer(secret);
    return { prefix: Buffer.from(`k8s:enc:${kind}:v1:${k.name}:`), transformer };
  });
}

function providers(list: unknown, path: string): PrefixedTransformer[] {
  if (!Array.isArray(list) || list.length === 0) fail(path, 'Required value: providers must contain at least one provider');
  return list.flatMap((p, i) => {
    const at = `${path}[${i}]`;
    const kinds = isObj(p) ? Object.keys(p) : [];
    if (kinds.length !== 1)
      fail(at, `Invalid value: ${JSON.stringify(kinds)}: more than one provider specified in a single element, should split into different list elements`);
    const kind = kinds[0];
    switch (kind) {
      case 'identity':
        return [{ prefix: Buffer.alloc(0), transformer: identityTransformer }];
      case 'aescbc':
      case 'aesgcm':
      case 'secretbox':
        return keyed(kind, (p as Obj)[kind], `${at}.${kind}`);
      default:
        return fail(at, `Unsupported value: "${kind}": supported values: "aescbc", "aesgcm", "identity", "secretbox"`);
    }
  });
}

/** Parses an apiserver.config.k8s.io/v1 EncryptionConfiguration (YAML or JSON). */
export function parseEncryptionConfig(text: string): TransformerLookup {
  let doc: unknown;
  try {
    doc = load(text);
  } catch (err) {
    throw new EncryptionConfigError(`error while parsing file: ${(err as Error).message}`);
  }
  if (!isObj(doc)) throw new EncryptionConfigError('error while parsing file: not an object');
  if (doc.kind !== 'EncryptionConfiguration') fail('kind', `Invalid value: ${JSON.stringify(doc.kind ?? '')}: must be EncryptionConfiguration`);
  if (doc.apiVersion !== 'apiserver.config.k8s.io/v1')
    fail('apiVersion', `Invalid value: ${JSON.stringify(doc.apiVersion ?? '')}: must be apiserver.config.k8s.io/v1`);
  if (!Array.isArray(doc.resources) || doc.resources.length === 0) fail('resources', 'Required value: resources is a required field');
  const byResource = new Map<string, ValueTransformer>();
  doc.resources.forEach((entry, i) => {
    const at = `resources[${i}]`;
    const names = isObj(entry) ? entry.resources : undefined;
    if (!Array.isArray(names) || names.length === 0) fail(`${at}.resources`, 'Required value: resources is a required field');
    const transformer = prefixTransformers(providers((entry as Obj).providers, `${at}.providers`));
    names.forEach((name, j) => {
      if (typeof name !== 'string' || name === '') fail(`${at}.resources[${j}]`, 'Required value');
      const normalized = name.toLowerCase();
      if (byResource.has(normalized)) fail(`${at}.resources[${j}]`, `Duplicate value: "${name}"`);
      byResource.set(normalized, transformer);
    });
  });
  return (group, resource) => {
    const exact = group ? `${resource}.${group}` : resource;
    return byResource.get(exact) ?? byResource.get(`*.${group}`) ?? byResource.get('*.*');
  };
}

export function loadEncryptionConfig(path: string): TransformerLookup {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new EncryptionConfigError(`error reading encryption provider configuration file "${path}": ${(err as Error).message}`);
  }
  try {
    return parseEncryptionConfig(text);
  } catch (err) {
    throw new EncryptionConfigError(`error while parsing encryption provider configuration file "${path}": ${(err as Error).message}`);
  }
}
