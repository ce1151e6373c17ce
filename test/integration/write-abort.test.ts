import { isStatusError } from '../../src/api/errors';
import type { KubeObject } from '../../src/api/types';
import type { AdmissionAttributes, WriteAdmission } from '../../src/registry/admission-hooks';
import { GenericStore } from '../../src/registry/generic-store';
import { internalContext, type RequestContext } from '../../src/registry/request-context';
import { configmaps } from '../../src/resources/configmaps';
import { Etcd3Kv } from '../../src/storage/etcd/etcd3-kv';
import { EtcdStorage } from '../../src/storage/etcd/etcd-storage';
import { testEtcdEndpoint, uniquePrefix } from '../harness/server';

/**
 * A write whose request was abandoned (the client went away) or ran out of time while admission
 * was slow is never committed: the store checks right before each etcd transaction. Driven at the
 * store, on the real etcd, with an admission that stands for a slow webhook.
 */

let kv: Etcd3Kv;
let store: GenericStore;

beforeAll(() => {
  const prefix = uniquePrefix('abort');
  kv = new Etcd3Kv({ endpoints: [testEtcdEndpoint()] });
  store = new GenericStore(configmaps, new EtcdStorage(kv, `${prefix}/`), prefix);
});

afterAll(async () => {
  await kv.close();
});

const cm = (name: string, data: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data }) as KubeObject;

/** A request context whose abort controller the test holds, and whose deadline it sets. */
function request(deadline: number | null = null): { ctx: RequestContext; abort: AbortController } {
  const abort = new AbortController();
  const base = internalContext({ namespace: 'default', resource: 'configmaps' });
  return { ctx: { ...base, deadline, signal: abort.signal }, abort };
}

/** Admission that takes `ms` in its mutating phase and then runs `during` (the client leaving, say). */
function slowAdmission(ms: number, during: () => void = () => undefined): WriteAdmission & { seen: AdmissionAttributes['operation'][] } {
  const seen: AdmissionAttributes['operation'][] = [];
  return {
    seen,
    async mutate(attrs) {
      seen.push(attrs.operation);
      await new Promise((r) => setTimeout(r, ms));
      during();
    },
    async validate() {},
  };
}

async function read(name: string): Promise<KubeObject | null> {
  try {
    return await store.get('default', name, { resourceVersion: '', match: '' });
  } catch (err) {
    if (isStatusError(err) && err.code === 404) return null;
    throw err;
  }
}

const TIMEOUT = { code: 504, status: { reason: 'Timeout' } };

describe('an abandoned write is not committed', () => {
  test('a create whose client leaves during admission', async () => {
    const { ctx, abort } = request();
    const admission = slowAdmission(50, () => abort.abort());
    await expect(store.create(ctx, cm('left', { a: '1' }), { dryRun: false, admission })).rejects.toMatchObject(TIMEOUT);
    expect(admission.seen).toEqual(['CREATE']);
    expect(await read('left')).toBeNull();
  });

  test('a create whose deadline passes during admission', async () => {
    const { ctx } = request(Date.now() + 20);
    await expect(store.create(ctx, cm('late', { a: '1' }), { dryRun: false, admission: slowAdmission(60) })).rejects.toMatchObject({
      ...TIMEOUT,
      message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
    });
    expect(await read('late')).toBeNull();
  });

  test('an update and a delete whose client leaves leave the object as it was', async () => {
    await store.create(internalContext({ namespace: 'default' }), cm('kept', { a: '1' }), { dryRun: false });
    const update = request();
    const change = slowAdmission(30, () => update.abort.abort());
    await expect(store.update(update.ctx, 'kept', cm('kept', { a: '2' }), { dryRun: false, admission: change })).rejects.toMatchObject(TIMEOUT);
    expect(change.seen).toEqual(['UPDATE']);
    const removal = request();
    const remove = slowAdmission(30, () => removal.abort.abort());
    await expect(store.delete(removal.ctx, 'kept', { dryRun: false, admission: remove })).rejects.toMatchObject(TIMEOUT);
    expect(remove.seen).toEqual(['DELETE']);
    expect((await read('kept'))?.data).toEqual({ a: '1' });
  });

  test('a write still in time is committed', async () => {
    const { ctx } = request(Date.now() + 10_000);
    await store.create(ctx, cm('in-time', { a: '1' }), { dryRun: false, admission: slowAdmission(10) });
    expect((await read('in-time'))?.data).toEqual({ a: '1' });
  });
});
