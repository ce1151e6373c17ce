import { decodeProtobuf } from '../../src/codec/protobuf';
import { encodeProtobuf } from '../../src/codec/protobuf-write';
import { causes } from '../harness/causes';
import { RawEtcd } from '../harness/etcd-keys';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

const WITHOUT_BINDER = ['*', '-persistentvolume-binder-controller'];

/** core/v1 persistentvolumeclaims and persistentvolumes, storage.k8s.io/v1 storageclasses. */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
let etcd: RawEtcd;
const PVCS = '/api/v1/namespaces/default/persistentvolumeclaims';
const PVS = '/api/v1/persistentvolumes';
const SCS = '/apis/storage.k8s.io/v1/storageclasses';
const MERGE = 'application/merge-patch+json';
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

beforeAll(async () => {
  // The test writes what the binder would (phases, claimRefs): the binder stays out of its way.
  server = await startTestServer({ controllers: WITHOUT_BINDER });
  api = new Api(server.url);
  etcd = new RawEtcd();
});

afterAll(async () => {
  etcd.close();
  await server.close();
});

const claim = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
});
const volume = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name },
  spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' }, ...spec },
});
const storageClass = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name },
  provisioner: 'example.com/disk',
  ...extra,
});

test('discovery: claims and volumes in core/v1 with status, storage classes in storage.k8s.io/v1', async () => {
  const core = (await api.get('/api/v1')).body.resources as { name: string; namespaced: boolean; shortNames?: string[] }[];
  const byName = Object.fromEntries(core.map((r) => [r.name, r]));
  expect(byName.persistentvolumeclaims).toMatchObject({ namespaced: true, shortNames: ['pvc'], kind: 'PersistentVolumeClaim' });
  expect(byName.persistentvolumes).toMatchObject({ namespaced: false, shortNames: ['pv'], kind: 'PersistentVolume' });
  expect(byName['persistentvolumeclaims/status']).toBeDefined();
  expect(byName['persistentvolumes/status']).toBeDefined();
  const storage = (await api.get('/apis/storage.k8s.io/v1')).body.resources as { name: string; namespaced: boolean; shortNames: string[] }[];
  expect(storage.map((r) => [r.name, r.namespaced, r.shortNames])).toEqual([
    ['csidrivers', false, undefined],
    ['csinodes', false, undefined],
    ['csistoragecapacities', true, undefined],
    ['storageclasses', false, ['sc']],
    ['volumeattachments', false, undefined],
    ['volumeattachments/status', false, undefined],
    ['volumeattributesclasses', false, ['vac']],
  ]);
});

test("a claim gets kube's defaults and starts Pending; status cannot be set on create", async () => {
  const res = await api.post(PVCS, { ...claim('defaults'), status: { phase: 'Bound' } });
  expect(res.status).toBe(201);
  expect(res.body.spec.volumeMode).toBe('Filesystem');
  expect(res.body.status).toEqual({ phase: 'Pending' });
  expect(await etcd.keys(`${server.prefix}/persistentvolumeclaims/default/`)).toContain(`${server.prefix}/persistentvolumeclaims/default/defaults`);
});

test("a volume gets kube's defaults and starts Pending with a transition time", async () => {
  const res = await api.post(PVS, volume('pv-defaults'));
  expect(res.status).toBe(201);
  expect(res.body.spec).toMatchObject({ persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem', hostPath: { path: '/data', type: '' } });
  expect(res.body.status.phase).toBe('Pending');
  expect(res.body.status.lastPhaseTransitionTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
});

test("a storage class gets kube's defaults", async () => {
  const res = await api.post(SCS, storageClass('standard'));
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' });
});

test('invalid claims are refused with kube-apiserver messages', async () => {
  const res = await api.post(PVCS, {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'bad' },
    spec: { resources: { requests: { storage: '0' } } },
  });
  expect(res.status).toBe(422);
  expect(res.body.message).toBe(
    'PersistentVolumeClaim "bad" is invalid: [spec.accessModes: Required value: at least 1 access mode is required, spec.resources[storage]: Invalid value: "0": must be greater than zero]',
  );
  const missing = await api.post(PVCS, claim('bad', { accessModes: ['ReadWriteOncePod', 'ReadWriteOnce'], resources: {}, volumeMode: 'Raw' }));
  expect(causes(missing.body)).toEqual([
    'FieldValueForbidden spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes',
    'FieldValueRequired spec.resources[storage]: Required value',
    'FieldValueNotSupported spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"',
  ]);
});

test('invalid volumes are refused with kube-apiserver messages', async () => {
  const res = await api.post(PVS, { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'bad' }, spec: { accessModes: ['ReadWriteOnce'] } });
  expect(res.status).toBe(422);
  expect(causes(res.body)).toEqual([
    'FieldValueRequired spec.capacity: Required value',
    'FieldValueNotSupported spec.capacity: Unsupported value: null: supported values: "storage"',
    'FieldValueRequired spec: Required value: must specify a volume type',
  ]);
  const two = await api.post(PVS, volume('bad', { nfs: { server: 'nfs.local', path: 'exports' }, persistentVolumeReclaimPolicy: 'Keep' }));
  expect(causes(two.body)).toEqual([
    'FieldValueNotSupported spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"',
    'FieldValueForbidden spec.nfs: Forbidden: may not specify more than 1 volume type',
  ]);
});

test('invalid storage classes are refused with kube-apiserver messages', async () => {
  const res = await api.post(SCS, {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'bad' },
    reclaimPolicy: 'Recycle',
    volumeBindingMode: 'Later',
  });
  expect(res.status).toBe(422);
  expect(causes(res.body)).toEqual([
    'FieldValueRequired provisioner: Required value',
    'FieldValueNotSupported reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"',
    'FieldValueNotSupported volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"',
  ]);
  const name = await api.post(SCS, storageClass('bad', { provisioner: 'example.com/Disk_' }));
  expect(name.body.message).toContain('provisioner: Invalid value: "example.com/disk_": name part must consist of alphanumeric characters');
});

test("a storage class's provisioner, parameters, reclaim policy and binding mode are immutable", async () => {
  await api.post(SCS, storageClass('fixed', { parameters: { type: 'ssd' } }));
  const res = await api.patch(
    `${SCS}/fixed`,
    { provisioner: 'example.com/other', parameters: { type: 'hdd' }, reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' },
    MERGE,
  );
  expect(res.status).toBe(422);
  expect(causes(res.body)).toEqual([
    'FieldValueForbidden parameters: Forbidden: updates to parameters are forbidden.',
    'FieldValueForbidden provisioner: Forbidden: updates to provisioner are forbidden.',
    'FieldValueForbidden reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.',
    'FieldValueInvalid volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable',
  ]);
  expect((await api.patch(`${SCS}/fixed`, { allowVolumeExpansion: true }, MERGE)).status).toBe(200);
});

test('a pending claim is immutable but for its volume name; a bound claim may grow, never below its capacity', async () => {
  // PersistentVolumeClaimResize lets a claim grow only when its class allows volume expansion.
  expect(
    (
      await api.post(SCS, {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: { name: 'expandable' },
        provisioner: 'example.com/x',
        allowVolumeExpansion: true,
      })
    ).status,
  ).toBe(201);
  await api.post(PVCS, claim('grow', { storageClassName: 'expandable' }));
  const pending = await api.patch(`${PVCS}/grow`, { spec: { resources: { requests: { storage: '2Gi' } } } }, MERGE);
  expect(pending.status).toBe(422);
  expect(causes(pending.body)).toEqual([
    'FieldValueForbidden spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims',
  ]);
  expect((await api.patch(`${PVCS}/grow`, { spec: { volumeName: 'pv-grow' } }, MERGE)).status).toBe(200);
  expect((await api.patch(`${PVCS}/grow`, { spec: { volumeName: 'pv-other' } }, MERGE)).status).toBe(422);

  const bound = await api.patch(`${PVCS}/grow/status`, { status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } } }, MERGE);
  expect(bound.status).toBe(200);
  expect(bound.body.spec.resources.requests.storage).toBe('1Gi');
  const grown = await api.patch(`${PVCS}/grow`, { spec: { resources: { requests: { storage: '2Gi' } } } }, MERGE);
  expect(grown.status).toBe(200);
  expect(grown.body.spec.resources.requests.storage).toBe('2Gi');
  expect(grown.body.status.phase).toBe('Bound');
  const shrunk = await api.patch(`${PVCS}/grow`, { spec: { resources: { requests: { storage: '1024Mi' } } } }, MERGE);
  expect(causes(shrunk.body)).toEqual(['FieldValueForbidden spec.resources.requests.storage: Forbidden: field can not be less than status.capacity']);
  const mode = await api.patch(`${PVCS}/grow`, { spec: { volumeMode: 'Block' } }, MERGE);
  expect(causes(mode.body)).toContain('FieldValueInvalid volumeMode: Invalid value: "Block": field is immutable');
});

test("a volume's source is immutable; its status moves through /status with a new transition time", async () => {
  const created = (await api.post(PVS, volume('pv-status'))).body;
  const moved = await api.patch(`${PVS}/pv-status`, { spec: { hostPath: { path: '/elsewhere' } } }, MERGE);
  expect(causes(moved.body)).toEqual(['FieldValueForbidden spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation']);
  expect((await api.patch(`${PVS}/pv-status`, { spec: { capacity: { storage: '10Gi' } } }, MERGE)).status).toBe(200);

  const ignored = await api.patch(`${PVS}/pv-status`, { status: { phase: 'Available' } }, MERGE);
  expect(ignored.body.status.phase).toBe('Pending');
  await new Promise((r) => setTimeout(r, 1100));
  const res = await api.patch(`${PVS}/pv-status/status`, { status: { phase: 'Available' }, spec: { capacity: { storage: '1Gi' } } }, MERGE);
  expect(res.status).toBe(200);
  expect(res.body.status.phase).toBe('Available');
  expect(res.body.status.lastPhaseTransitionTime > created.status.lastPhaseTransitionTime).toBe(true);
  expect(res.body.spec.capacity.storage).toBe('10Gi');
});

test('claims, volumes and classes in protobuf, both ways; quantities keep their text', async () => {
  for (const [path, body] of [
    [PVCS, claim('proto-claim', { resources: { requests: { storage: '1.5Gi' } }, storageClassName: '' })],
    [PVS, volume('proto-pv', { capacity: { storage: '500Mi' } })],
    [SCS, storageClass('proto-sc', { allowVolumeExpansion: false, parameters: { a: 'b' } })],
  ] as const) {
    const created = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': PROTOBUF, Accept: PROTOBUF },
      body: encodeProtobuf(body),
    });
    expect(created.status).toBe(201);
    const decoded = decodeProtobuf(Buffer.from(await created.arrayBuffer()));
    const json = (await api.get(`${path}/${body.metadata.name}`)).body;
    expect(decoded).toEqual(json);
  }
  const pvc = (await api.get(`${PVCS}/proto-claim`)).body;
  expect(pvc.spec).toMatchObject({ resources: { requests: { storage: '1.5Gi' } }, storageClassName: '' });
  expect((await api.get(`${SCS}/proto-sc`)).body.allowVolumeExpansion).toBe(false);
});

test('Table output has kubectl columns', async () => {
  await api.post(
    SCS,
    storageClass('default-class', { metadata: { name: 'default-class', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } }),
  );
  const sc = await api.get(`${SCS}/default-class`, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  expect(sc.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual([
    'Name',
    'Provisioner',
    'ReclaimPolicy',
    'VolumeBindingMode',
    'AllowVolumeExpansion',
    'Age',
  ]);
  expect(sc.body.rows[0].cells.slice(0, 5)).toEqual(['default-class (default)', 'example.com/disk', 'Delete', 'Immediate', false]);
  const pvc = await api.get(`${PVCS}/grow`, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  expect(pvc.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual([
    'Name',
    'Status',
    'Volume',
    'Capacity',
    'Access Modes',
    'StorageClass',
    'VolumeAttributesClass',
    'Age',
    'VolumeMode',
  ]);
  expect(pvc.body.rows[0].cells.slice(0, 7)).toEqual(['grow', 'Bound', 'pv-grow', '1Gi', 'RWO', 'expandable', '<unset>']);
});
