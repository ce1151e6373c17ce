import { eventually } from '../harness/etcd-keys';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

/** The simple stored kinds of kube-apiserver's default surface: created, read, listed as tables, defaulted and validated over HTTP. */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

beforeAll(async () => {
  server = await startTestServer();
  api = new Api(server.url);
});

afterAll(async () => {
  await server.close();
});

interface Case {
  path: string;
  object: Record<string, unknown>;
  columns: string[];
  /** What the server adds (defaults) or must keep. */
  expected: Record<string, unknown>;
  /** A body kube-apiserver refuses, with one of its field errors. */
  bad: { object: Record<string, unknown>; field: string };
}

const ns = (plural: string, group = '') => (group ? `/apis/${group}/namespaces/default/${plural}` : `/api/v1/namespaces/default/${plural}`);
const cluster = (plural: string, group: string) => `/apis/${group}/${plural}`;
const meta = (name: string) => ({ name });
const podSpec = { containers: [{ name: 'c', image: 'nginx:1.27' }] };

const CASES: Record<string, Case> = {
  podtemplates: {
    path: ns('podtemplates'),
    object: { apiVersion: 'v1', kind: 'PodTemplate', metadata: meta('pt'), template: { metadata: { labels: { app: 'x' } }, spec: podSpec } },
    columns: ['Name', 'Containers', 'Images', 'Pod Labels'],
    expected: {
      metadata: expect.objectContaining({ generation: 1 }),
      template: expect.objectContaining({ spec: expect.objectContaining({ restartPolicy: 'Always', dnsPolicy: 'ClusterFirst' }) }),
    },
    bad: {
      object: { apiVersion: 'v1', kind: 'PodTemplate', metadata: meta('bad'), template: { spec: { containers: [] } } },
      field: 'template.spec.containers',
    },
  },
  limitranges: {
    path: ns('limitranges'),
    object: { apiVersion: 'v1', kind: 'LimitRange', metadata: meta('lr'), spec: { limits: [{ type: 'Container', max: { cpu: '2' }, min: { cpu: '100m' } }] } },
    columns: ['Name', 'Created At'],
    expected: { spec: { limits: [{ type: 'Container', max: { cpu: '2' }, min: { cpu: '100m' }, default: { cpu: '2' }, defaultRequest: { cpu: '2' } }] } },
    bad: {
      object: { apiVersion: 'v1', kind: 'LimitRange', metadata: meta('bad'), spec: { limits: [{ type: 'Container', max: { cpu: '1' }, min: { cpu: '2' } }] } },
      field: 'spec.limits[0].min[cpu]',
    },
  },
  resourcequotas: {
    path: ns('resourcequotas'),
    object: {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: meta('rq'),
      spec: { hard: { pods: '10', 'limits.cpu': '4' } },
      status: { hard: { pods: '1' } },
    },
    columns: ['Name', 'Age', 'Request', 'Limit'],
    expected: { spec: { hard: { pods: '10', 'limits.cpu': '4' } }, status: {} },
    bad: { object: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: meta('bad'), spec: { hard: { pods: '-1' } } }, field: 'spec.hard[pods]' },
  },
  controllerrevisions: {
    path: ns('controllerrevisions', 'apps/v1'),
    object: {
      apiVersion: 'apps/v1',
      kind: 'ControllerRevision',
      metadata: meta('cr'),
      data: { spec: { template: { metadata: { labels: { app: 'x' } } } } },
      revision: 3,
    },
    columns: ['Name', 'Controller', 'Revision', 'Age'],
    expected: { revision: 3, data: { spec: { template: { metadata: { labels: { app: 'x' } } } } } },
    bad: { object: { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: meta('bad'), revision: 1 }, field: 'data' },
  },
  runtimeclasses: {
    path: cluster('runtimeclasses', 'node.k8s.io/v1'),
    object: { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: meta('gvisor'), handler: 'runsc' },
    columns: ['Name', 'Handler', 'Age'],
    expected: { handler: 'runsc' },
    bad: { object: { apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: meta('bad'), handler: 'Not_A_Label' }, field: 'handler' },
  },
  csidrivers: {
    path: cluster('csidrivers', 'storage.k8s.io/v1'),
    object: { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: meta('csi.example.com'), spec: {} },
    columns: ['Name', 'AttachRequired', 'PodInfoOnMount', 'StorageCapacity', 'TokenRequests', 'RequiresRepublish', 'Modes', 'Age'],
    expected: {
      spec: expect.objectContaining({
        attachRequired: true,
        podInfoOnMount: false,
        fsGroupPolicy: 'ReadWriteOnceWithFSType',
        volumeLifecycleModes: ['Persistent'],
        requiresRepublish: false,
        storageCapacity: false,
      }),
    },
    bad: {
      object: { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: meta('bad.example.com'), spec: { volumeLifecycleModes: ['Sometimes'] } },
      field: 'spec.volumeLifecycleModes',
    },
  },
  csinodes: {
    path: cluster('csinodes', 'storage.k8s.io/v1'),
    object: { apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: meta('node-1'), spec: { drivers: [{ name: 'csi.example.com', nodeID: 'n1' }] } },
    columns: ['Name', 'Drivers', 'Age'],
    expected: { spec: { drivers: [{ name: 'csi.example.com', nodeID: 'n1' }] } },
    bad: {
      object: { apiVersion: 'storage.k8s.io/v1', kind: 'CSINode', metadata: meta('bad'), spec: { drivers: [{ name: 'csi.example.com' }] } },
      field: 'spec.drivers[0].nodeID',
    },
  },
  volumeattachments: {
    path: cluster('volumeattachments', 'storage.k8s.io/v1'),
    object: {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'VolumeAttachment',
      metadata: meta('va'),
      spec: { attacher: 'csi.example.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv-1' } },
      status: { attached: true },
    },
    columns: ['Name', 'Attacher', 'PV', 'Node', 'Attached', 'Age'],
    expected: { status: { attached: false } },
    bad: {
      object: {
        apiVersion: 'storage.k8s.io/v1',
        kind: 'VolumeAttachment',
        metadata: meta('bad'),
        spec: { attacher: 'csi.example.com', nodeName: 'node-1', source: {} },
      },
      field: 'spec.source',
    },
  },
  csistoragecapacities: {
    path: ns('csistoragecapacities', 'storage.k8s.io/v1'),
    object: { apiVersion: 'storage.k8s.io/v1', kind: 'CSIStorageCapacity', metadata: meta('cap'), storageClassName: 'fast', capacity: '10Gi' },
    columns: ['Name', 'StorageClassName', 'Capacity'],
    expected: { storageClassName: 'fast', capacity: '10Gi' },
    bad: { object: { apiVersion: 'storage.k8s.io/v1', kind: 'CSIStorageCapacity', metadata: meta('bad'), capacity: '1Gi' }, field: 'storageClassName' },
  },
  volumeattributesclasses: {
    path: cluster('volumeattributesclasses', 'storage.k8s.io/v1'),
    object: {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'VolumeAttributesClass',
      metadata: meta('gold'),
      driverName: 'csi.example.com',
      parameters: { iops: '1000' },
    },
    columns: ['Name', 'DriverName', 'Age'],
    expected: { driverName: 'csi.example.com', parameters: { iops: '1000' } },
    bad: {
      object: { apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttributesClass', metadata: meta('bad'), driverName: 'csi.example.com' },
      field: 'parameters',
    },
  },
};

describe.each(Object.entries(CASES))('%s', (_resource, c) => {
  const name = (c.object.metadata as { name: string }).name;

  test('create, get (JSON and protobuf) and a Table with kube-apiserver columns', async () => {
    const created = await api.post(c.path, c.object);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject(c.expected);
    const got = await api.get(`${c.path}/${name}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ ...c.expected, kind: c.object.kind, apiVersion: c.object.apiVersion });
    const proto = await api.get(`${c.path}/${name}`, { accept: PROTOBUF });
    expect(proto.status).toBe(200);
    expect(proto.headers.get('content-type')).toBe(PROTOBUF);
    const table = await api.get(c.path, { accept: TABLE });
    expect(table.body.columnDefinitions.map((d: { name: string }) => d.name)).toEqual(c.columns);
    expect(table.body.rows[0].cells[0]).toBe(name);
  });

  test('an invalid object is a 422 naming the field', async () => {
    const res = await api.post(c.path, c.bad.object);
    expect(res.status).toBe(422);
    expect(res.body.reason).toBe('Invalid');
    expect(res.body.details.causes.map((x: { field: string }) => x.field)).toContain(c.bad.field);
  });
});

test('printed cells follow kube-apiserver: quota usage, limits apart; CSI driver modes; volume attachment source', async () => {
  const rq = (await api.get(`${CASES.resourcequotas.path}/rq`)).body;
  rq.status = { hard: { pods: '10', 'limits.cpu': '4', 'requests.cpu': '2' }, used: { pods: '3' } };
  expect((await api.put(`${CASES.resourcequotas.path}/rq/status`, rq)).status).toBe(200);
  const quota = await api.get(CASES.resourcequotas.path, { accept: TABLE });
  expect(quota.body.rows[0].cells.slice(2)).toEqual(['pods: 3/10, requests.cpu: 0/2', 'limits.cpu: 0/4']);
  // Enforced, the quota would ask every later pod in default to name limits.cpu.
  expect((await api.delete(`${CASES.resourcequotas.path}/rq`)).status).toBe(200);
  const driver = await api.get(CASES.csidrivers.path, { accept: TABLE });
  expect(driver.body.rows[0].cells).toEqual(['csi.example.com', true, false, false, '<unset>', false, 'Persistent', expect.any(String)]);
  const va = await api.get(CASES.volumeattachments.path, { accept: TABLE });
  expect(va.body.rows[0].cells.slice(0, 5)).toEqual(['va', 'csi.example.com', 'pv-1', 'node-1', false]);
});

test('what kube-apiserver keeps immutable stays so', async () => {
  const rc = (await api.get(`${CASES.runtimeclasses.path}/gvisor`)).body;
  const changed = await api.put(`${CASES.runtimeclasses.path}/gvisor`, { ...rc, handler: 'kata' });
  expect(changed.status).toBe(422);
  expect(changed.body.details.causes).toContainEqual(expect.objectContaining({ field: 'handler', message: 'Invalid value: "kata": field is immutable' }));
  const vac = (await api.get(`${CASES.volumeattributesclasses.path}/gold`)).body;
  const params = await api.put(`${CASES.volumeattributesclasses.path}/gold`, { ...vac, parameters: { iops: '2000' } });
  expect(params.status).toBe(422);
  expect(params.body.details.causes).toContainEqual(
    expect.objectContaining({ field: 'parameters', message: 'Forbidden: updates to parameters are forbidden.' }),
  );
  const driver = (await api.get(`${CASES.csidrivers.path}/csi.example.com`)).body;
  const attach = await api.put(`${CASES.csidrivers.path}/csi.example.com`, {
    ...driver,
    spec: { ...driver.spec, attachRequired: false, fsGroupPolicy: 'File' },
  });
  expect(attach.status).toBe(422);
  // kube names the field "attachedRequired" here; fsGroupPolicy may change.
  expect(attach.body.details.causes).toEqual([
    expect.objectContaining({ field: 'spec.attachedRequired', message: 'Invalid value: false: field is immutable' }),
  ]);
  const cap = (await api.get(`${CASES.csistoragecapacities.path}/cap`)).body;
  const moved = await api.put(`${CASES.csistoragecapacities.path}/cap`, { ...cap, storageClassName: 'slow', capacity: '20Gi' });
  expect(moved.status).toBe(422);
  expect(moved.body.details.causes).toEqual([expect.objectContaining({ field: 'storageClassName', message: 'Invalid value: "slow": field is immutable' })]);
  const pt = (await api.get(`${CASES.podtemplates.path}/pt`)).body;
  pt.template.metadata.labels.app = 'y';
  const bumped = await api.put(`${CASES.podtemplates.path}/pt`, pt);
  expect(bumped.body.metadata.generation).toBe(2);
});

test('discovery lists the new kinds with kube-apiserver short names', async () => {
  const core = (await api.get('/api/v1')).body.resources as { name: string; shortNames?: string[] }[];
  expect(core.find((r) => r.name === 'limitranges')?.shortNames).toEqual(['limits']);
  expect(core.find((r) => r.name === 'resourcequotas')?.shortNames).toEqual(['quota']);
  expect(core.map((r) => r.name)).toEqual(expect.arrayContaining(['podtemplates', 'resourcequotas/status', 'replicationcontrollers/scale']));
  const storage = (await api.get('/apis/storage.k8s.io/v1')).body.resources as { name: string; shortNames?: string[] }[];
  expect(storage.map((r) => r.name)).toEqual(
    expect.arrayContaining(['csidrivers', 'csinodes', 'csistoragecapacities', 'volumeattachments', 'volumeattachments/status', 'volumeattributesclasses']),
  );
  expect(storage.find((r) => r.name === 'volumeattributesclasses')?.shortNames).toEqual(['vac']);
  expect((await api.get('/apis/node.k8s.io/v1')).body.resources.map((r: { name: string }) => r.name)).toEqual(['runtimeclasses']);
});

test('a ReplicationController deleted without options orphans its pods, as core/v1 always has', async () => {
  const rcs = '/api/v1/namespaces/default/replicationcontrollers';
  const rc = (
    await api.post(rcs, {
      apiVersion: 'v1',
      kind: 'ReplicationController',
      metadata: meta('old'),
      spec: { template: { metadata: { labels: { app: 'old' } }, spec: podSpec } },
    })
  ).body;
  expect(rc.spec).toMatchObject({ replicas: 1, selector: { app: 'old' } });
  const ownerReferences = [{ apiVersion: 'v1', kind: 'ReplicationController', name: 'old', uid: rc.metadata.uid, controller: true }];
  expect(
    (
      await api.post('/api/v1/namespaces/default/pods', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'old-1', labels: { app: 'old' }, ownerReferences },
        spec: podSpec,
      })
    ).status,
  ).toBe(201);
  const res = await api.delete(`${rcs}/old`);
  expect(res.status).toBe(200);
  expect(res.body.metadata.finalizers).toEqual(['orphan']);
  await eventually('the controller to go', async () => ((await api.get(`${rcs}/old`)).status === 404 ? true : undefined));
  const pod = (await api.get('/api/v1/namespaces/default/pods/old-1')).body;
  expect(pod.metadata.ownerReferences).toBeUndefined();
  // Told otherwise, nothing holds it.
  expect(
    (
      await api.post(rcs, {
        apiVersion: 'v1',
        kind: 'ReplicationController',
        metadata: meta('bg'),
        spec: { template: { metadata: { labels: { app: 'bg' } }, spec: podSpec } },
      })
    ).status,
  ).toBe(201);
  expect((await api.delete(`${rcs}/bg?propagationPolicy=Background`)).status).toBe(200);
  expect((await api.get(`${rcs}/bg`)).status).toBe(404);
});
