import { EncryptionConfigError, parseEncryptionConfig } from './encryption-config';

const KEY1 = Buffer.alloc(32, 1).toString('base64');
const KEY2 = Buffer.alloc(32, 2).toString('base64');
const KEY16 = Buffer.alloc(16, 3).toString('base64');

function config(providers: string, resources = '["secrets"]'): string {
  return `{"apiVersion":"apiserver.config.k8s.io/v1","kind":"EncryptionConfiguration","resources":[{"resources":${resources},"providers":${providers}}]}`;
}

const KEY = '/registry/secrets/default/s';
const plain = Buffer.from('{"metadata":{"name":"s"}}');

describe('EncryptionConfiguration providers', () => {
  test.each([
    ['aesgcm', KEY1],
    ['aesgcm', KEY16],
    ['aescbc', KEY1],
    ['secretbox', KEY1],
  ])('%s writes k8s:enc:%s:v1:<key name>: and reads its own values back', (provider, secret) => {
    const t = parseEncryptionConfig(config(`[{"${provider}":{"keys":[{"name":"k1","secret":"${secret}"}]}}]`))('', 'secrets')!;
    const stored = t.toStorage(plain, KEY);
    expect(stored.subarray(0, `k8s:enc:${provider}:v1:k1:`.length).toString()).toBe(`k8s:enc:${provider}:v1:k1:`);
    expect(stored.includes(Buffer.from('"name"'))).toBe(false);
    expect(t.fromStorage(stored, KEY)).toEqual({ data: plain, stale: false });
  });

  test('the first key writes; every key reads; values of older keys are stale', () => {
    const old = parseEncryptionConfig(config(`[{"aescbc":{"keys":[{"name":"k1","secret":"${KEY1}"}]}}]`))('', 'secrets')!;
    const rotated = parseEncryptionConfig(config(`[{"aescbc":{"keys":[{"name":"k2","secret":"${KEY2}"},{"name":"k1","secret":"${KEY1}"}]}}]`))('', 'secrets')!;
    const before = old.toStorage(plain, KEY);
    expect(rotated.fromStorage(before, KEY)).toEqual({ data: plain, stale: true });
    const after = rotated.toStorage(plain, KEY);
    expect(after.subarray(0, 21).toString()).toBe('k8s:enc:aescbc:v1:k2:');
    expect(rotated.fromStorage(after, KEY).stale).toBe(false);
    expect(() => old.fromStorage(after, KEY)).toThrow('no matching prefix found');
  });

  test('aesgcm binds the value to its etcd key; a wrong key fails authentication', () => {
    const t = parseEncryptionConfig(config(`[{"aesgcm":{"keys":[{"name":"k1","secret":"${KEY1}"}]}}]`))('', 'secrets')!;
    const stored = t.toStorage(plain, KEY);
    expect(() => t.fromStorage(stored, '/registry/secrets/default/other')).toThrow('cipher: message authentication failed');
  });

  test('identity first writes plain text and still reads encrypted values; identity alone refuses them', () => {
    const enc = parseEncryptionConfig(config(`[{"secretbox":{"keys":[{"name":"k1","secret":"${KEY1}"}]}}]`))('', 'secrets')!;
    const migrating = parseEncryptionConfig(config(`[{"identity":{}},{"secretbox":{"keys":[{"name":"k1","secret":"${KEY1}"}]}}]`))('', 'secrets')!;
    expect(migrating.toStorage(plain, KEY)).toEqual(plain);
    expect(migrating.fromStorage(enc.toStorage(plain, KEY), KEY)).toEqual({ data: plain, stale: true });
    const identity = parseEncryptionConfig(config('[{"identity":{}}]'))('', 'secrets')!;
    expect(() => identity.fromStorage(enc.toStorage(plain, KEY), KEY)).toThrow('no matching prefix found');
  });

  test('resources match exactly, by group wildcard, or by *.*', () => {
    const lookup = parseEncryptionConfig(config('[{"identity":{}}]', '["secrets","*.apps"]'));
    expect(lookup('', 'secrets')).toBeDefined();
    expect(lookup('apps', 'deployments')).toBeDefined();
    expect(lookup('', 'configmaps')).toBeUndefined();
    expect(parseEncryptionConfig(config('[{"identity":{}}]', '["*.*"]'))('coordination.k8s.io', 'leases')).toBeDefined();
  });

  test.each([
    ['{"kind":"Other","apiVersion":"apiserver.config.k8s.io/v1","resources":[]}', 'kind'],
    [config('[{"aescbc":{"keys":[{"name":"k1","secret":"c2hvcnQ="}]}}]'), 'secret is not of the expected length, got 5'],
    [config('[{"kms":{}}]'), 'Unsupported value: "kms"'],
    [config('[]'), 'providers must contain at least one provider'],
    [config(`[{"aesgcm":{"keys":[{"name":"a","secret":"${KEY1}"},{"name":"a","secret":"${KEY2}"}]}}]`), 'Duplicate value: "a"'],
  ])('a malformed configuration is refused (%#)', (text, message) => {
    expect(() => parseEncryptionConfig(text)).toThrow(EncryptionConfigError);
    expect(() => parseEncryptionConfig(text)).toThrow(message);
  });
});
