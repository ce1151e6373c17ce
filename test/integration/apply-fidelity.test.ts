import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';
import { createEstablished, simpleCrd } from '../harness/crds';
import { WITHOUT_WORKLOAD_CONTROLLERS } from '../harness/workload-controllers';

/** managedFields bookkeeping as kube-apiserver's field manager keeps it, seen over HTTP. */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

beforeAll(async () => {
  server = await startTestServer(WITHOUT_WORKLOAD_CONTROLLERS);
  api = new Api(server.url);
});

afterAll(async () => {
  await server.close();
});

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
}

const n = (i: number): string => String(i).padStart(2, '0');
const dataOf = (...keys: string[]) => ({ 'f:data': Object.fromEntries(keys.map((k) => [`f:${k}`, {}])) });
const updater = (i: number, apiVersion = 'v1'): Entry => ({
  manager: `m${n(i)}`,
  operation: 'Update',
  apiVersion,
  time: `2020-01-01T00:00:${n(i)}Z`,
  fieldsType: 'FieldsV1',
  fieldsV1: dataOf(`k${n(i)}`),
});

const create = async (name: string, keys: number) => {
  const data = Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${n(i + 1)}`, 'v']));
  const res = await api.post(`${CONFIGMAPS}?fieldManager=m01`, { metadata: { name }, data });
  expect(res.status).toBe(201);
  return res.body;
};

describe('the cap of 10 Update managers (capManagersManager)', () => {
  test('the oldest Update entries past 10 are merged into ancient-changes, one per apiVersion, with the time of the last merged', async () => {
    const live = await create('capped', 11);
    const managedFields = [updater(1, 'v0'), ...Array.from({ length: 10 }, (_, i) => updater(i + 2))];
    const res = await api.put(`${CONFIGMAPS}/capped?fieldManager=writer`, {
      ...live,
      metadata: { ...live.metadata, managedFields },
      data: { ...live.data, w: 'x' },
    });
    expect(res.status).toBe(200);
    const entries = res.body.metadata.managedFields as Entry[];
    // 12 updaters: m01 is alone at v0; m02 becomes v1's bucket and takes m03 and m04, leaving 10.
    expect(entries.map((e) => [e.manager, e.apiVersion, e.time])).toEqual([
      ['m01', 'v0', '2020-01-01T00:00:01Z'],
      ['ancient-changes', 'v1', '2020-01-01T00:00:04Z'],
      ...[5, 6, 7, 8, 9, 10, 11].map((i) => [`m${n(i)}`, 'v1', `2020-01-01T00:00:${n(i)}Z`]),
      ['writer', 'v1', expect.any(String)],
    ]);
    expect(entries[1]).toEqual({ ...updater(4), manager: 'ancient-changes', fieldsV1: dataOf('k02', 'k03', 'k04') });
    expect(entries[9].fieldsV1).toEqual(dataOf('w'));
  });

  test('Apply entries are not counted, and 10 Update entries stay as they are', async () => {
    const live = await create('at-cap', 10);
    const managedFields = Array.from({ length: 10 }, (_, i) => updater(i + 1));
    const put = await api.put(`${CONFIGMAPS}/at-cap?fieldManager=m10`, {
      ...live,
      metadata: { ...live.metadata, managedFields },
      data: { ...live.data, k10: 'changed' },
    });
    expect(put.status).toBe(200);
    const applied = await api.request('PATCH', `${CONFIGMAPS}/at-cap?fieldManager=applier`, {
      raw: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'at-cap' }, data: { a: 'b' } }),
      contentType: 'application/apply-patch+yaml',
    });
    expect(applied.status).toBe(200);
    const entries = applied.body.metadata.managedFields as Entry[];
    expect(entries.map((e) => e.manager)).toEqual(['applier', ...Array.from({ length: 10 }, (_, i) => `m${n(i + 1)}`)]);
  });
});

describe('managedFields sent with a write (decodeLiveOrNew)', () => {
  const sentWith = async (name: string, managedFields: unknown[]) => {
    const live = await create(name, 1);
    const res = await api.put(`${CONFIGMAPS}/${name}?fieldManager=writer`, {
      ...live,
      metadata: { ...live.metadata, managedFields },
      data: { ...live.data, w: 'x' },
    });
    expect(res.status).toBe(200);
    return (res.body.metadata.managedFields as Entry[]).map((e) => [e.manager, e.operation, e.fieldsV1]);
  };
  const keptLive = [
    ['m01', 'Update', { 'f:data': { '.': {}, 'f:k01': {} } }],
    ['writer', 'Update', dataOf('w')],
  ];

  test.each([
    ['an unknown operation', { ...updater(5), operation: 'Patch' }],
    ['no operation', { ...updater(5), operation: undefined }],
    ['no apiVersion', { ...updater(5), apiVersion: '' }],
    ['no fieldsType', { ...updater(5), fieldsType: undefined }],
    ['another fieldsType', { ...updater(5), fieldsType: 'FieldsV2' }],
  ])('an entry with %s is not decodable: the live ownership is kept, without an error', async (_what, bad) => {
    expect(await sentWith(`bad-${Math.random().toString(36).slice(2, 8)}`, [updater(4), bad])).toEqual(keptLive);
  });

  test('[{}] resets them: only the write itself is owned', async () => {
    expect(await sentWith('reset-empty-entry', [{}])).toEqual([['writer', 'Update', dataOf('w')]]);
  });

  test('through a subresource they are ignored: the live ownership is kept (ignoreManagedFieldsFromRequestObject)', async () => {
    const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';
    const template = { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'i' }] } };
    const created = await api.post(`${DEPLOYMENTS}?fieldManager=m`, { metadata: { name: 'sub' }, spec: { selector: { matchLabels: { app: 'd' } }, template } });
    expect(created.status).toBe(201);
    const forged = [{ manager: 'x', operation: 'Update', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:status': { 'f:replicas': {} } } }];
    const res = await api.put(`${DEPLOYMENTS}/sub/status?fieldManager=st`, {
      ...created.body,
      metadata: { ...created.body.metadata, managedFields: forged },
      status: { replicas: 2 },
    });
    expect(res.status).toBe(200);
    expect((res.body.metadata.managedFields as (Entry & { subresource?: string })[]).map((e) => [e.manager, e.subresource])).toEqual([
      ['m', undefined],
      ['st', 'status'],
    ]);
  });

  test('are kept in sortEncodedManagedFields order (operation, second, manager, apiVersion, subresource), times in UTC seconds', async () => {
    const live = await create('sorted', 4);
    const entry = (manager: string, apiVersion: string, time: string, key: string): Entry => ({
      manager,
      operation: 'Update',
      apiVersion,
      time,
      fieldsType: 'FieldsV1',
      fieldsV1: dataOf(key),
    });
    const managedFields = [
      entry('c', 'v1', '2020-01-01T00:45:00Z', 'k03'),
      entry('c', 'v0', '2020-01-01T00:45:00Z', 'k04'),
      entry('b', 'v1', '2020-01-01T00:30:00.5Z', 'k02'),
      entry('a', 'v1', '2020-01-01T01:00:00+01:00', 'k01'),
    ];
    const res = await api.put(`${CONFIGMAPS}/sorted?fieldManager=writer`, {
      ...live,
      metadata: { ...live.metadata, managedFields },
      data: { ...live.data, w: 'x' },
    });
    expect(res.status).toBe(200);
    expect((res.body.metadata.managedFields as Entry[]).map((e) => [e.manager, e.apiVersion, e.time])).toEqual([
      ['a', 'v1', '2020-01-01T00:00:00Z'],
      ['b', 'v1', '2020-01-01T00:30:00Z'],
      ['c', 'v0', '2020-01-01T00:45:00Z'],
      ['c', 'v1', '2020-01-01T00:45:00Z'],
      ['writer', 'v1', expect.any(String)],
    ]);
  });

  test('decodable entries replace the live ones', async () => {
    expect(await sentWith('replaced', [updater(4)])).toEqual([
      ['m04', 'Update', dataOf('k04')],
      ['writer', 'Update', dataOf('w')],
    ]);
  });
});

describe('the applied configuration', () => {
  const applyRaw = (name: string, body: Record<string, unknown>, manager = 'applier') =>
    api.request('PATCH', `${CONFIGMAPS}/${name}?fieldManager=${manager}`, { raw: JSON.stringify(body), contentType: 'application/apply-patch+yaml' });

  test.each([
    ['another version', { apiVersion: 'v2', kind: 'ConfigMap' }, '/v2, Kind=ConfigMap'],
    ['another kind', { apiVersion: 'v1', kind: 'Secret' }, '/v1, Kind=Secret'],
    ['a group on a core kind', { apiVersion: 'apps/v1', kind: 'ConfigMap' }, 'apps/v1, Kind=ConfigMap'],
    ['no apiVersion or kind', {}, '/, Kind='],
    ['an apiVersion that is no group version', { apiVersion: 'a/b/c', kind: 'ConfigMap' }, '/, Kind='],
  ])('of %s is refused by versionCheckManager: 400 invalid object type', async (_what, typeMeta, gvk) => {
    const res = await applyRaw('typed', { ...typeMeta, metadata: { name: 'typed' }, data: { a: 'b' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ reason: 'BadRequest', message: `invalid object type: ${gvk}` });
    expect((await api.get(`${CONFIGMAPS}/typed`)).status).toBe(404);
  });

  test('conflicts with several managers are listed by manager identifier, as getConflictMessage sorts them', async () => {
    const owns = (subresource?: string): Entry & { subresource?: string } => ({
      manager: 'm',
      operation: 'Update',
      apiVersion: 'v1',
      time: '2020-01-01T00:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: dataOf('a'),
      ...(subresource ? { subresource } : {}),
    });
    const created = await api.post(`${CONFIGMAPS}?fieldManager=m`, { metadata: { name: 'shared' }, data: { a: '1' } });
    // an update that changes nothing keeps the managedFields it sends
    const shared = await api.put(`${CONFIGMAPS}/shared?fieldManager=m`, {
      ...created.body,
      metadata: { ...created.body.metadata, managedFields: [owns(), owns('status')] },
    });
    expect(shared.body.metadata.managedFields).toHaveLength(2);
    const res = await applyRaw('shared', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shared' }, data: { a: '2' } });
    expect(res.status).toBe(409);
    // {"manager":"m","operation":"Update","apiVersion":"v1","subresource":"status"} sorts before {"manager":"m","operation":"Update","apiVersion":"v1"}
    expect(res.body.message).toBe(
      'Apply failed with 2 conflicts: conflicts with "m" with subresource "status" using v1:\n- .data.a\nconflicts with "m" using v1:\n- .data.a',
    );
  });
});

describe('the time and apiVersion of an Apply entry', () => {
  const applyCm = (name: string, data: Record<string, string>) =>
    api.request('PATCH', `${CONFIGMAPS}/${name}?fieldManager=sharer`, {
      raw: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data }),
      contentType: 'application/apply-patch+yaml',
    });
  const sharerOf = (res: { body: { metadata: { managedFields: Entry[] } } }) => res.body.metadata.managedFields.find((e) => e.manager === 'sharer');

  test('an apply that changes no value only takes ownership: a first one has no time, a later one keeps its own (managedFieldsUpdater.Apply)', async () => {
    const live = await create('sharing', 2);
    const first = await applyCm('sharing', { k01: 'v' });
    expect(first.status).toBe(200);
    expect(first.body.metadata.resourceVersion).not.toBe(live.metadata.resourceVersion);
    expect(sharerOf(first)).toEqual({ manager: 'sharer', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: dataOf('k01') });
    const dated = { ...sharerOf(first)!, time: '2020-01-01T00:00:00Z' };
    const put = await api.put(`${CONFIGMAPS}/sharing?fieldManager=m01`, {
      ...first.body,
      // a change besides the times: one of the times alone is not written (IgnoreManagedFieldsTimestampsTransformer)
      metadata: {
        ...first.body.metadata,
        labels: { dated: 'yes' },
        managedFields: [...first.body.metadata.managedFields.filter((e: Entry) => e.manager !== 'sharer'), dated],
      },
    });
    expect(put.status).toBe(200);
    const more = await applyCm('sharing', { k01: 'v', k02: 'v' });
    expect(sharerOf(more)).toEqual({ ...dated, fieldsV1: dataOf('k01', 'k02') });
    const changed = await applyCm('sharing', { k01: 'v', k02: 'v', k03: 'new' });
    expect(changed.status).toBe(200);
    expect(sharerOf(changed)?.time).not.toBe('2020-01-01T00:00:00Z');
  });

  test('through another version of a custom resource: the applier keeps one entry at the version it last applied, an updater gets one per version', async () => {
    const crd = simpleCrd('fidelity.example.com', 'widgets', 'Widget') as { spec: { versions: unknown[] } };
    const schema = {
      openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } } } },
    };
    crd.spec.versions = [
      { name: 'v1', served: true, storage: true, schema },
      { name: 'v2', served: true, storage: false, schema },
    ];
    await createEstablished(api, crd);
    const widgets = (v: string) => `/apis/fidelity.example.com/${v}/namespaces/default/widgets`;
    const widget = (v: string, spec: Record<string, string>) => ({ apiVersion: `fidelity.example.com/${v}`, kind: 'Widget', metadata: { name: 'w' }, spec });
    expect((await api.post(`${widgets('v1')}?fieldManager=m`, widget('v1', { a: '1' }))).status).toBe(201);
    const patched = await api.request('PATCH', `${widgets('v2')}/w?fieldManager=m`, {
      raw: JSON.stringify({ spec: { b: '2' } }),
      contentType: 'application/merge-patch+json',
    });
    expect(patched.status).toBe(200);
    expect((patched.body.metadata.managedFields as Entry[]).map((e) => [e.manager, e.operation, e.apiVersion, e.fieldsV1])).toEqual([
      ['m', 'Update', 'fidelity.example.com/v1', { 'f:spec': { '.': {}, 'f:a': {} } }],
      ['m', 'Update', 'fidelity.example.com/v2', { 'f:spec': { 'f:b': {} } }],
    ]);
    const apply = (v: string, spec: Record<string, string>) =>
      api.request('PATCH', `${widgets(v)}/w?fieldManager=ap`, { raw: JSON.stringify(widget(v, spec)), contentType: 'application/apply-patch+yaml' });
    expect((await apply('v1', { a: '1' })).status).toBe(200);
    const again = await apply('v2', { a: '1', b: '2' });
    expect(again.status).toBe(200);
    expect((again.body.metadata.managedFields as Entry[]).filter((e) => e.manager === 'ap').map((e) => [e.operation, e.apiVersion])).toEqual([
      ['Apply', 'fidelity.example.com/v2'],
    ]);
  });
});

describe('the paths of a conflict', () => {
  test('are listed as fieldpath.Set.Iterate lists them: members before subtrees, keys by value', async () => {
    const created = await api.post(`${CONFIGMAPS}?fieldManager=m`, { metadata: { name: 'ordered' }, data: { a: '1' }, immutable: false });
    expect(created.status).toBe(201);
    const cm = await api.request('PATCH', `${CONFIGMAPS}/ordered?fieldManager=applier`, {
      raw: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ordered' }, data: { a: '2' }, immutable: true }),
      contentType: 'application/apply-patch+yaml',
    });
    expect(cm.status).toBe(409);
    expect(cm.body.message).toBe('Apply failed with 2 conflicts: conflicts with "m" using v1:\n- .immutable\n- .data.a');
    expect(cm.body.details.causes.map((c: { field: string }) => c.field)).toEqual(['.immutable', '.data.a']);

    const SERVICES = '/api/v1/namespaces/default/services';
    const ports = (target: number) => [10, 9].map((port) => ({ name: `p${port}`, port, protocol: 'TCP', targetPort: target }));
    expect((await api.post(`${SERVICES}?fieldManager=m`, { metadata: { name: 'ordered' }, spec: { ports: ports(1000) } })).status).toBe(201);
    const svc = await api.request('PATCH', `${SERVICES}/ordered?fieldManager=applier`, {
      raw: JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'ordered' }, spec: { ports: ports(2000) } }),
      contentType: 'application/apply-patch+yaml',
    });
    expect(svc.status).toBe(409);
    expect(svc.body.message).toBe(
      'Apply failed with 2 conflicts: conflicts with "m" using v1:\n- .spec.ports[port=9,protocol="TCP"].targetPort\n- .spec.ports[port=10,protocol="TCP"].targetPort',
    );
  });
});
