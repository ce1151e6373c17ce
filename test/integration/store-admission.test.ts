import { isStatusError } from '../../src/api/errors';
import type { KubeObject } from '../../src/api/types';
import type { AdmissionAttributes, WriteAdmission } from '../../src/registry/types';
import { GenericStore } from '../../src/registry/generic-store';
import { SERVER_OWN_WRITE, systemContext, systemReadContext, withInfo, type RequestContext } from '../../src/registry/request-context';
import { configmaps } from '../../src/resources/configmaps';
import { deployments } from '../../src/resources/deployments';
import { Etcd3Kv } from '../../src/storage/etcd/etcd3-kv';
import { EtcdStorage } from '../../src/storage/etcd/etcd-storage';
import { everything } from '../../src/storage/interfaces';
import { testEtcdEndpoint, uniquePrefix } from '../harness/shared-etcd';

/**
 * Admission as the store runs it, on the real etcd: what each write tells it, and that a write
 * whose request was abandoned (the client went away) or ran out of time while admission was slow
 * (a webhook, say) is never committed: the store checks right before each etcd transaction.
 */

let kv: Etcd3Kv;
let store: GenericStore;
let deploymentStore: GenericStore;

beforeAll(() => {
  const prefix = uniquePrefix('abort');
  kv = new Etcd3Kv({ endpoints: [testEtcdEndpoint()] });
  const storage = new EtcdStorage(kv, `${prefix}/`);
  store = new GenericStore(configmaps, storage, prefix);
  deploymentStore = new GenericStore(deployments, storage, prefix);
});

afterAll(async () => {
  await kv.close();
});

const cm = (name: string, data: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data }) as KubeObject;

/** A request context whose abort controller the test holds, and whose deadline it sets. */
function request(deadline: number | null = null): { ctx: RequestContext; abort: AbortController } {
  const abort = new AbortController();
  const base = systemContext({ namespace: 'default', resource: 'configmaps' }, SERVER_OWN_WRITE);
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
    return await store.get(systemReadContext('default'), name, { resourceVersion: '', match: '' });
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
    await expect(store.create({ ...ctx, admission }, cm('left', { a: '1' }), { dryRun: false })).rejects.toMatchObject(TIMEOUT);
    expect(admission.seen).toEqual(['CREATE']);
    expect(await read('left')).toBeNull();
  });

  test('a create whose deadline passes during admission', async () => {
    const { ctx } = request(Date.now() + 20);
    await expect(store.create({ ...ctx, admission: slowAdmission(60) }, cm('late', { a: '1' }), { dryRun: false })).rejects.toMatchObject({
      ...TIMEOUT,
      message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
    });
    expect(await read('late')).toBeNull();
  });

  test('an update and a delete whose client leaves leave the object as it was', async () => {
    await store.create(systemContext({ namespace: 'default' }, SERVER_OWN_WRITE), cm('kept', { a: '1' }), { dryRun: false });
    const update = request();
    const change = slowAdmission(30, () => update.abort.abort());
    await expect(store.update({ ...update.ctx, admission: change }, 'kept', cm('kept', { a: '2' }), { dryRun: false })).rejects.toMatchObject(TIMEOUT);
    expect(change.seen).toEqual(['UPDATE']);
    const removal = request();
    const remove = slowAdmission(30, () => removal.abort.abort());
    await expect(store.delete({ ...removal.ctx, admission: remove }, 'kept', { dryRun: false })).rejects.toMatchObject(TIMEOUT);
    expect(remove.seen).toEqual(['DELETE']);
    expect((await read('kept'))?.data).toEqual({ a: '1' });
  });

  test('a write still in time is committed', async () => {
    const { ctx } = request(Date.now() + 10_000);
    await store.create({ ...ctx, admission: slowAdmission(10) }, cm('in-time', { a: '1' }), { dryRun: false });
    expect((await read('in-time'))?.data).toEqual({ a: '1' });
  });
});

describe('reads take the request context', () => {
  test('namespace and subresource come from it; an abandoned read is not served (504), a live one is', async () => {
    const { ctx: live } = request(Date.now() + 10_000);
    await store.create(live, cm('read-me', { a: '1' }), { dryRun: false });
    const latest = { resourceVersion: '', match: '' } as const;
    expect((await store.get(live, 'read-me', latest)).data).toEqual({ a: '1' });
    await expect(store.get(withInfo(live, { namespace: 'other' }), 'read-me', latest)).rejects.toMatchObject({ code: 404 });
    expect(await store.find(withInfo(live, { namespace: 'other' }), 'read-me', latest)).toBeNull();
    const listed = await store.list(live, { ...latest, predicate: everything });
    expect(listed.items.map((o) => o.metadata.name)).toContain('read-me');

    const { ctx: left, abort } = request(Date.now() + 10_000);
    abort.abort();
    await expect(store.get(left, 'read-me', latest)).rejects.toMatchObject(TIMEOUT);
    await expect(store.find(left, 'read-me', latest)).rejects.toMatchObject(TIMEOUT);
    await expect(store.list(left, { ...latest, predicate: everything })).rejects.toMatchObject(TIMEOUT);

    await deploymentStore.create(
      live,
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'read-scale' },
        spec: {
          replicas: 2,
          selector: { matchLabels: { a: 'b' } },
          template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
        },
      } as KubeObject,
      { dryRun: false },
    );
    const scale = await deploymentStore.get(withInfo(live, { subresource: 'scale' }), 'read-scale', latest);
    expect(scale).toMatchObject({ kind: 'Scale', spec: { replicas: 2 } });
  });
});

/** Admission that records what each phase is told, in order. */
function recording(): WriteAdmission & { calls: (Omit<AdmissionAttributes, 'def' | 'request'> & { phase: string })[] } {
  const calls: (Omit<AdmissionAttributes, 'def' | 'request'> & { phase: string })[] = [];
  const record =
    (phase: string) =>
    async ({ def: _def, request: _request, ...attrs }: AdmissionAttributes) => {
      calls.push({ phase, ...structuredClone(attrs) });
    };
  return { calls, mutate: record('mutate'), validate: record('validate') };
}

describe('what admission is told', () => {
  const ctx = (subresource = '') => ({
    ...systemContext({ namespace: 'default', subresource }, SERVER_OWN_WRITE),
    user: { name: 'alice', uid: 'u1', groups: ['devs'], extra: {} },
  });

  test('create, update and delete: phases, operation, old object, options, user', async () => {
    const create = recording();
    await store.create({ ...ctx(), admission: create }, cm('told', { a: '1' }), { dryRun: false, fieldManager: 'me' });
    expect(create.calls.map((c) => `${c.phase} ${c.operation} ${c.oldObject ? 'old' : 'new'}`)).toEqual(['mutate CREATE new', 'validate CREATE new']);
    expect(create.calls[0]).toMatchObject({
      namespace: 'default',
      name: 'told',
      subresource: '',
      kind: { group: '', version: 'v1', kind: 'ConfigMap' },
      options: { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', fieldManager: 'me' },
      dryRun: false,
      user: { name: 'alice', groups: ['devs'] },
    });
    // Validation sees the object the strategy prepared (a uid), mutation the one sent.
    expect(create.calls[0].object?.metadata.uid).toBeUndefined();
    expect(create.calls[1].object?.metadata.uid).toBeDefined();

    const update = recording();
    await store.update({ ...ctx(), admission: update }, 'told', cm('told', { a: '2' }), { dryRun: true });
    expect(update.calls.map((c) => `${c.phase} ${c.operation}`)).toEqual(['mutate UPDATE', 'validate UPDATE']);
    expect(update.calls[0]).toMatchObject({
      dryRun: true,
      options: { kind: 'UpdateOptions', dryRun: ['All'] },
      oldObject: { data: { a: '1' } },
      object: { data: { a: '2' } },
    });

    const removal = recording();
    await store.delete({ ...ctx(), admission: removal }, 'told', { dryRun: false, gracePeriodSeconds: 0 });
    expect(removal.calls.map((c) => `${c.phase} ${c.operation}`)).toEqual(['mutate DELETE', 'validate DELETE']);
    expect(removal.calls[0]).toMatchObject({
      name: 'told',
      object: undefined,
      oldObject: { data: { a: '1' } },
      options: { kind: 'DeleteOptions', gracePeriodSeconds: 0 },
    });
  });

  test('a write through scale is admitted with Scale objects', async () => {
    const d = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'scaled' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'x' } },
        template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    } as unknown as KubeObject;
    await deploymentStore.create(ctx(), d, { dryRun: false });
    const scale = recording();
    await deploymentStore.update({ ...ctx('scale'), admission: scale }, 'scaled', (current) => ({ ...current, spec: { replicas: 3 } }), { dryRun: false });
    expect(scale.calls.map((c) => `${c.phase} ${c.operation} ${c.object?.kind} ${c.oldObject?.kind}`)).toEqual([
      'mutate UPDATE Scale Scale',
      'validate UPDATE Scale Scale',
    ]);
    expect(scale.calls[1]).toMatchObject({
      subresource: 'scale',
      kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
      object: { spec: { replicas: 3 } },
      oldObject: { spec: { replicas: 1 } },
    });
  });
});
