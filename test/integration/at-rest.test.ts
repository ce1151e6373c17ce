import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseFeatureGates } from '../../src/server/feature-gates';
import { RawEtcd } from '../harness/etcd-keys';
import { storedObject } from '../harness/stored-object';
import { Api } from '../harness/http';

/** The root CA publisher's config map, in every namespace at some moment after the start. */
const ROOT_CA = 'kube-root-ca.crt';
/** What kapi writes itself (each namespace's root CA, kube-system's extension-apiserver-authentication) left out. */
const withoutRootCa = (keys: string[]): string[] =>
  keys.filter((k) => !k.endsWith(`/${ROOT_CA}`) && !k.endsWith('/kube-system/extension-apiserver-authentication'));
import { startTestServer } from '../harness/server';
import { uniquePrefix } from '../harness/shared-etcd';

const dir = mkdtempSync(path.join(tmpdir(), 'kapi-enc-'));
const KEY1 = Buffer.alloc(32, 7).toString('base64');
const KEY2 = Buffer.alloc(32, 9).toString('base64');
let etcd: RawEtcd;
const running: { close(): Promise<void> }[] = [];

beforeAll(() => {
  etcd = new RawEtcd();
});
afterAll(() => etcd.close());
/** Servers a test left running (it failed half-way) are closed, so that the run ends. */
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

async function start(overrides: Parameters<typeof startTestServer>[0]): Promise<Awaited<ReturnType<typeof startTestServer>>> {
  const server = await startTestServer(overrides);
  running.push(server);
  return server;
}

function configFile(name: string, providers: string): string {
  const file = path.join(dir, name);
  writeFileSync(
    file,
    `apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: [secrets]\n    providers:\n${providers}`,
  );
  return file;
}

const secret = (name: string) => ({ metadata: { name }, stringData: { password: 'hunter2' } });
const S = '/api/v1/namespaces/default/secrets';

describe('encryption at rest', () => {
  test('secrets are ciphertext in etcd with the provider prefix; rotation keeps old values readable and rewrites them', async () => {
    const prefix = uniquePrefix('enc');
    const key = (name: string) => `${prefix}/secrets/default/${name}`;
    const first = configFile('one.yaml', `      - aescbc:\n          keys:\n            - name: key1\n              secret: ${KEY1}\n      - identity: {}\n`);
    let server = await start({ etcdPrefix: prefix, encryptionProviderConfig: first });
    let api = new Api(server.url);
    expect((await api.post(S, secret('old'))).status).toBe(201);
    expect((await api.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'plain' }, data: { a: 'b' } })).status).toBe(201);
    const raw = (await etcd.get(key('old')))!;
    expect(raw.subarray(0, 'k8s:enc:aescbc:v1:key1:'.length).toString()).toBe('k8s:enc:aescbc:v1:key1:');
    expect(raw.includes(Buffer.from('hunter2'))).toBe(false);
    expect(raw.includes(Buffer.from(Buffer.from('hunter2').toString('base64')))).toBe(false);
    expect((await storedObject(etcd, `${prefix}/configmaps/default/plain`))!.data).toEqual({ a: 'b' });
    expect((await api.get(`${S}/old`)).body.data).toEqual({ password: Buffer.from('hunter2').toString('base64') });
    await server.close();

    const rotated = configFile(
      'two.yaml',
      `      - secretbox:\n          keys:\n            - name: key2\n              secret: ${KEY2}\n      - aescbc:\n          keys:\n            - name: key1\n              secret: ${KEY1}\n`,
    );
    server = await start({ etcdPrefix: prefix, encryptionProviderConfig: rotated });
    api = new Api(server.url);
    const old = await api.get(`${S}/old`);
    expect(old.status).toBe(200);
    expect(old.body.data.password).toBe(Buffer.from('hunter2').toString('base64'));
    expect((await api.post(S, secret('new'))).status).toBe(201);
    expect((await etcd.get(key('new')))!.subarray(0, 25).toString()).toBe('k8s:enc:secretbox:v1:key2');
    // An unchanged replace still rewrites a value read with an older key (kubectl replace of every secret).
    const replaced = await api.put(`${S}/old`, old.body);
    expect(replaced.status).toBe(200);
    expect(Number(replaced.body.metadata.resourceVersion)).toBeGreaterThan(Number(old.body.metadata.resourceVersion));
    expect((await etcd.get(key('old')))!.subarray(0, 25).toString()).toBe('k8s:enc:secretbox:v1:key2');
    await server.close();

    // Without the old key, what only it could read fails as kube-apiserver fails it.
    await etcd.put(key('stale'), Buffer.concat([Buffer.from('k8s:enc:aescbc:v1:key1:'), Buffer.alloc(21, 1)]));
    server = await start({ etcdPrefix: prefix, encryptionProviderConfig: rotated });
    api = new Api(server.url);
    const broken = await api.get(`${S}/stale`);
    expect(broken.status).toBe(500);
    expect(broken.body).toMatchObject({ reason: 'InternalError', message: 'Internal error occurred: the stored data is not a multiple of the block size' });
    const list = await api.get(S);
    expect(list.status).toBe(500);
    expect(list.body.message).toBe(`Internal error occurred: unable to transform key "${key('stale')}": the stored data is not a multiple of the block size`);
    expect((await api.get(`${S}/new`)).status).toBe(200);
    await etcd.delete(key('stale'));
    expect(await etcd.keys(`${prefix}/secrets/`)).toEqual([key('new'), key('old')]);
    await server.close();
  });

  test('a malformed configuration stops the server with the reason', async () => {
    const bad = configFile('bad.yaml', `      - aesgcm:\n          keys:\n            - name: k\n              secret: c2hvcnQ=\n`);
    await expect(startTestServer({ encryptionProviderConfig: bad })).rejects.toThrow(
      'resources[0].providers[0].aesgcm.keys[0].secret: Invalid value: "REDACTED": secret is not of the expected length, got 5, expected one of [16 24 32]',
    );
  });
});

describe('corrupt objects', () => {
  test('with AllowUnsafeMalformedObjectDeletion: get and list fail naming the key; the unsafe option deletes it', async () => {
    const server = await start({ featureGates: parseFeatureGates('AllowUnsafeMalformedObjectDeletion=true') });
    const api = new Api(server.url);
    const C = '/api/v1/namespaces/default/configmaps';
    const key = `${server.prefix}/configmaps/default/broken`;
    await api.post(C, { metadata: { name: 'fine' }, data: { a: '1' } });
    await api.post(C, { metadata: { name: 'broken', finalizers: ['example.com/hold'] }, data: { a: '1' } });
    await etcd.put(key, 'garbage{');
    const revision = (await etcd.client.get(key).exec()).kvs[0].mod_revision;

    const get = await api.get(`${C}/broken`);
    expect(get.status).toBe(500);
    expect(get.body.reason).toBe('InternalError');
    expect(get.body.message).toMatch(
      new RegExp(
        `^Internal error occurred: StorageError: corrupt object, Code: 7, Key: /configmaps/default/broken, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=${revision}: couldn't get version/kind; json parse error: invalid character 'g' looking for beginning of value$`,
      ),
    );
    expect((await api.get(`${C}/fine`)).status).toBe(200);
    const list = await api.get(C);
    expect(list.status).toBe(500);
    expect(list.body).toMatchObject({
      reason: 'StorageReadError',
      message: 'failed to read one or more configmaps from the storage',
      details: { name: 'list', kind: 'configmaps', causes: [{ reason: 'UnexpectedServerResponse', field: key }] },
      code: 500,
    });
    expect(list.body.details.causes[0].message).toMatch(new RegExp(`^StorageError: corrupt object, Code: 7, Key: ${key}, ResourceVersion: 0`));

    const normal = await api.delete(`${C}/broken`);
    expect(normal.status).toBe(500);
    expect(normal.body.message).toContain('corrupt object');
    const mixed = await api.delete(`${C}/broken?ignoreStoreReadErrorWithClusterBreakingPotential=true&dryRun=All&gracePeriodSeconds=0`);
    expect(mixed.status).toBe(400);
    expect(mixed.body.reason).toBe('BadRequest');
    expect(mixed.body.details.causes.map((c: any) => c.field)).toEqual(['dryRun', 'gracePeriodSeconds']);
    const readable = await api.delete(`${C}/fine?ignoreStoreReadErrorWithClusterBreakingPotential=true`);
    expect(readable.status).toBe(422);
    expect(readable.body.message).toBe(
      'configmaps "fine" is invalid: ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option',
    );
    const collection = await api.delete(`${C}?ignoreStoreReadErrorWithClusterBreakingPotential=true`);
    expect(collection.status).toBe(422);
    expect(collection.body.message).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is not allowed with DELETECOLLECTION, try again after removing the option',
    );

    const unsafe = await api.delete(`${C}/broken`, {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', ignoreStoreReadErrorWithClusterBreakingPotential: true },
    });
    expect(unsafe.status).toBe(200);
    expect(unsafe.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'broken', kind: 'ConfigMap' },
      code: 200,
    });
    expect((await api.get(`${C}/broken`)).status).toBe(404);
    expect((await api.get(C)).body.items.map((i: any) => i.metadata.name).filter((n: string) => n !== ROOT_CA)).toEqual(['fine']);
    expect(withoutRootCa(await etcd.keys(`${server.prefix}/configmaps/`))).toEqual([`${server.prefix}/configmaps/default/fine`]);
    await server.close();
  });

  test('without the gate the option is refused (400) and changes nothing; a corrupt object cannot be deleted', async () => {
    const server = await start({});
    const api = new Api(server.url);
    const C = '/api/v1/namespaces/default/configmaps';
    const key = `${server.prefix}/configmaps/default/broken`;
    await api.post(C, { metadata: { name: 'fine' } });
    await etcd.put(key, '{"no":"metadata"}');
    const get = await api.get(`${C}/broken`);
    expect(get.status).toBe(500);
    expect(get.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: "Object 'metadata' is missing or not an object",
      code: 500,
    });
    for (const name of ['broken', 'fine']) {
      const unsafe = await api.delete(`${C}/${name}?ignoreStoreReadErrorWithClusterBreakingPotential=true`);
      expect(unsafe.status).toBe(400);
      expect(unsafe.body.message).toBe(
        'DeleteOptions.meta.k8s.io "" is invalid: ignoreStoreReadErrorWithClusterBreakingPotential: Forbidden: requires the AllowUnsafeMalformedObjectDeletion feature gate',
      );
    }
    expect(withoutRootCa(await etcd.keys(`${server.prefix}/configmaps/`))).toEqual([
      `${server.prefix}/configmaps/default/broken`,
      `${server.prefix}/configmaps/default/fine`,
    ]);
    expect((await api.delete(`${C}/broken`)).status).toBe(500);
    expect((await api.delete(`${C}/fine?ignoreStoreReadErrorWithClusterBreakingPotential=false`)).status).toBe(200);
    await etcd.delete(key);
    expect(withoutRootCa(await etcd.keys(`${server.prefix}/configmaps/`))).toEqual([]);
    await server.close();
  });
});
