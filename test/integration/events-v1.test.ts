import { decodeProtobuf } from '../../src/codec/protobuf';
import { encodeProtobuf } from '../../src/codec/protobuf-write';
import { causes } from '../harness/causes';
import { RawEtcd } from '../harness/etcd-keys';
import { storedObject } from '../harness/stored-object';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';
import { openWatch } from '../harness/watch';

/** events.k8s.io/v1 Events: the stored core/v1 Events, converted both ways, validated as kube-apiserver does. */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
let etcd: RawEtcd;
const EVENTS = '/apis/events.k8s.io/v1/namespaces/default/events';
const CORE = '/api/v1/namespaces/default/events';
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

beforeAll(async () => {
  server = await startTestServer();
  api = new Api(server.url);
  etcd = new RawEtcd();
});

afterAll(async () => {
  etcd.close();
  await server.close();
});

const regarding = { kind: 'Pod', namespace: 'default', name: 'web-1', uid: 'u-1', apiVersion: 'v1' };

const v1Event = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name },
  eventTime: '2024-05-06T07:08:09.123456Z',
  reportingController: 'default-scheduler',
  reportingInstance: 'sched-1',
  action: 'Binding',
  reason: 'Scheduled',
  regarding,
  note: 'Successfully assigned default/web-1 to node-1',
  type: 'Normal',
  ...extra,
});

test('created through events.k8s.io/v1, stored and listed as a core/v1 Event', async () => {
  const created = await api.post(EVENTS, v1Event('made-v1', { series: { count: 2, lastObservedTime: '2024-05-06T07:09:10.000001Z' } }));
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    regarding,
    note: 'Successfully assigned default/web-1 to node-1',
    reportingController: 'default-scheduler',
  });
  const stored = await storedObject(etcd, `${server.prefix}/events/default/made-v1`);
  expect(stored).toMatchObject({ apiVersion: 'v1', kind: 'Event', involvedObject: regarding, reportingComponent: 'default-scheduler' });
  const core = (await api.get(CORE)).body.items.find((e: { metadata: { name: string } }) => e.metadata.name === 'made-v1');
  expect(core).toMatchObject({
    involvedObject: regarding,
    message: 'Successfully assigned default/web-1 to node-1',
    reportingComponent: 'default-scheduler',
    reportingInstance: 'sched-1',
    action: 'Binding',
    reason: 'Scheduled',
    type: 'Normal',
    eventTime: '2024-05-06T07:08:09.123456Z',
    series: { count: 2, lastObservedTime: '2024-05-06T07:09:10.000001Z' },
  });
  expect(core).not.toHaveProperty('note');
  expect(core.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
});

test('created through core/v1, read through events.k8s.io/v1 with the deprecated fields', async () => {
  const created = await api.post(CORE, {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name: 'made-core' },
    involvedObject: regarding,
    reason: 'Pulled',
    message: 'Container image pulled',
    source: { component: 'kubelet', host: 'node-1' },
    firstTimestamp: '2024-05-06T07:08:09Z',
    lastTimestamp: '2024-05-06T07:09:09Z',
    count: 4,
    type: 'Normal',
  });
  expect(created.status).toBe(201);
  const got = await api.get(`${EVENTS}/made-core`);
  expect(got.status).toBe(200);
  expect(got.body).toMatchObject({
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    regarding,
    reason: 'Pulled',
    note: 'Container image pulled',
    deprecatedSource: { component: 'kubelet', host: 'node-1' },
    deprecatedFirstTimestamp: '2024-05-06T07:08:09Z',
    deprecatedLastTimestamp: '2024-05-06T07:09:09Z',
    deprecatedCount: 4,
  });
  for (const core of ['involvedObject', 'message', 'source', 'firstTimestamp', 'lastTimestamp', 'count']) expect(got.body).not.toHaveProperty(core);
  const list = await api.get(EVENTS);
  expect(list.body).toMatchObject({ apiVersion: 'events.k8s.io/v1', kind: 'EventList' });
  expect(list.body.items.map((e: { metadata: { name: string } }) => e.metadata.name)).toEqual(expect.arrayContaining(['made-core', 'made-v1']));
});

test('an update through events.k8s.io/v1 may change the series, nothing else', async () => {
  await api.post(EVENTS, v1Event('series', { series: { count: 2, lastObservedTime: '2024-05-06T07:09:10.000001Z' } }));
  const patched = await api.patch(
    `${EVENTS}/series`,
    { series: { count: 3, lastObservedTime: '2024-05-06T07:10:10.000001Z' } },
    'application/merge-patch+json',
  );
  expect(patched.status).toBe(200);
  expect(patched.body.series).toEqual({ count: 3, lastObservedTime: '2024-05-06T07:10:10.000001Z' });
  const changed = await api.patch(`${EVENTS}/series`, { note: 'other', series: { count: 1 } }, 'application/merge-patch+json');
  expect(changed.status).toBe(422);
  expect(causes(changed.body)).toEqual([
    'FieldValueInvalid series.count: Invalid value: "": should be at least 2',
    'FieldValueInvalid message: Invalid value: "other": field is immutable',
  ]);
});

test('a watch through events.k8s.io/v1 sees a core/v1 create converted', async () => {
  const start = await api.get(EVENTS);
  const watch = await openWatch(`${server.url}${EVENTS}?watch=1&resourceVersion=${start.body.metadata.resourceVersion}`);
  try {
    await api.post(CORE, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'watched' },
      involvedObject: regarding,
      reason: 'Killing',
      message: 'Stopping container',
      type: 'Normal',
    });
    const event = await watch.next();
    expect(event.type).toBe('ADDED');
    expect(event.object).toMatchObject({ apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'watched' }, regarding, note: 'Stopping container' });
    expect(event.object).not.toHaveProperty('involvedObject');
  } finally {
    watch.close();
  }
});

test("creates through events.k8s.io/v1 are validated strictly, with kube-apiserver's causes", async () => {
  const { eventTime: _t, ...noTime } = v1Event('bad');
  const res = await api.post(EVENTS, {
    ...noTime,
    reportingController: '',
    action: '',
    reason: 'r'.repeat(129),
    note: 'n'.repeat(1025),
    type: 'Odd',
    deprecatedCount: 2,
    series: { count: 1 },
  });
  expect(res.status).toBe(422);
  expect(res.body).toMatchObject({ kind: 'Status', reason: 'Invalid', details: { name: 'bad', group: 'events.k8s.io', kind: 'Event' } });
  expect(causes(res.body)).toEqual([
    'FieldValueInvalid series.count: Invalid value: "": should be at least 2',
    'FieldValueRequired series.lastObservedTime: Required value',
    'FieldValueRequired eventTime: Required value',
    'FieldValueInvalid type: Invalid value: "": has invalid value: Odd',
    'FieldValueInvalid count: Invalid value: "": needs to be unset',
  ]);
  const newStyle = await api.post(EVENTS, v1Event('bad-2', { reportingController: '', action: '', reason: 'r'.repeat(129), note: 'n'.repeat(1025) }));
  expect(newStyle.status).toBe(422);
  expect(causes(newStyle.body)).toEqual(
    expect.arrayContaining([
      'FieldValueRequired reportingController: Required value',
      'FieldValueRequired action: Required value',
      'FieldValueInvalid reason: Invalid value: "": can have at most 128 characters',
      'FieldValueInvalid message: Invalid value: "": can have at most 1024 characters',
    ]),
  );
});

test('protobuf, both ways', async () => {
  const body = v1Event('proto');
  const created = await fetch(`${server.url}${EVENTS}`, {
    method: 'POST',
    headers: { 'Content-Type': PROTOBUF, Accept: PROTOBUF },
    body: encodeProtobuf(body),
  });
  expect(created.status).toBe(201);
  expect(created.headers.get('content-type')).toBe(PROTOBUF);
  const decoded = decodeProtobuf(Buffer.from(await created.arrayBuffer()));
  expect(decoded).toEqual((await api.get(`${EVENTS}/proto`)).body);
  const list = await fetch(`${server.url}${EVENTS}`, { headers: { Accept: PROTOBUF } });
  expect(decodeProtobuf(Buffer.from(await list.arrayBuffer()))).toMatchObject({ apiVersion: 'events.k8s.io/v1', kind: 'EventList' });
});

test("discovery: events.k8s.io/v1 right after apps, sharing core events' storage version hash", async () => {
  const groups = (await api.get('/apis')).body.groups.map((g: { name: string }) => g.name);
  expect(groups.indexOf('events.k8s.io')).toBe(groups.indexOf('apps') + 1);
  const resources = (await api.get('/apis/events.k8s.io/v1')).body.resources;
  expect(resources).toEqual([
    {
      name: 'events',
      singularName: 'event',
      namespaced: true,
      kind: 'Event',
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['ev'],
      storageVersionHash: 'r2yiGXH7wu8=',
    },
  ]);
  const core = (await api.get('/api/v1')).body.resources.find((r: { name: string }) => r.name === 'events');
  expect(core.storageVersionHash).toBe('r2yiGXH7wu8=');
});

test("Table output: kubectl's event columns", async () => {
  const table = await api.get(`${EVENTS}/made-v1`, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
  expect(table.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual([
    'Last Seen',
    'Type',
    'Reason',
    'Object',
    'Subobject',
    'Source',
    'Message',
    'First Seen',
    'Count',
    'Name',
  ]);
  expect(table.body.rows[0].cells.slice(1, 7)).toEqual([
    'Normal',
    'Scheduled',
    'pod/web-1',
    '',
    'default-scheduler, sched-1',
    'Successfully assigned default/web-1 to node-1',
  ]);
});
