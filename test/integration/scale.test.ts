import { decodeProtobuf } from '../../src/codec/protobuf';
import { encodeProtobuf } from '../../src/codec/protobuf-write';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';
import { WITHOUT_WORKLOAD_CONTROLLERS } from '../harness/workload-controllers';

/** The scale subresource of deployments, replica sets and stateful sets: autoscaling/v1 Scale in and out. */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
const APPS = '/apis/apps/v1/namespaces/default';
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const MERGE = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const APPLY = 'application/apply-patch+yaml';

beforeAll(async () => {
  server = await startTestServer(WITHOUT_WORKLOAD_CONTROLLERS);
  api = new Api(server.url);
});

afterAll(async () => {
  await server.close();
});

const KINDS = [
  { resource: 'deployments', kind: 'Deployment' },
  { resource: 'replicasets', kind: 'ReplicaSet' },
  { resource: 'statefulsets', kind: 'StatefulSet' },
];

const workload = (kind: string, name: string, replicas: number, selector: Record<string, unknown> = { matchLabels: { app: name } }) => ({
  apiVersion: 'apps/v1',
  kind,
  metadata: { name },
  spec: {
    replicas,
    selector,
    template: { metadata: { labels: { app: name, tier: 'front' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
  },
});

const scale = (name: string, replicas: number, metadata: Record<string, unknown> = {}) => ({
  kind: 'Scale',
  apiVersion: 'autoscaling/v1',
  metadata: { name, ...metadata },
  spec: { replicas },
});

describe.each(KINDS)('$resource/scale', ({ resource, kind }) => {
  const base = `${APPS}/${resource}`;
  const group = `${resource}.apps`;

  async function create(name: string, replicas = 2, selector?: Record<string, unknown>): Promise<Record<string, any>> {
    const res = await api.post(base, workload(kind, name, replicas, selector));
    expect(res.status).toBe(201);
    return res.body;
  }

  test('GET shows a Scale made from the object: its metadata, spec.replicas, status.replicas and the selector string', async () => {
    const parent = await create('get', 3, {
      matchLabels: { app: 'get' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['front', 'back'] },
        { key: 'legacy', operator: 'DoesNotExist' },
      ],
    });
    const res = await api.get(`${base}/get/scale`);
    expect(res.status).toBe(200);
    const { name, namespace, uid, resourceVersion, creationTimestamp } = parent.metadata;
    expect(res.text).toBe(
      `${JSON.stringify({
        kind: 'Scale',
        apiVersion: 'autoscaling/v1',
        metadata: { name, namespace, uid, resourceVersion, creationTimestamp },
        spec: { replicas: 3 },
        status: { replicas: 0, selector: 'app=get,!legacy,tier in (back,front)' },
      })}\n`,
    );
  });

  test('status.replicas is the parent status; replicas 0 leaves spec empty, as omitempty does', async () => {
    const parent = await create('observed', 0);
    const status = await api.put(`${base}/observed/status`, { ...parent, status: { replicas: 4 } });
    expect(status.status).toBe(200);
    const res = await api.get(`${base}/observed/scale`);
    expect(res.body.spec).toEqual({});
    expect(res.body.status).toEqual({ replicas: 4, selector: 'app=observed' });
    expect(res.body.metadata.resourceVersion).toBe(status.body.metadata.resourceVersion);
  });

  test('PUT changes only spec.replicas of the parent and answers with the new Scale', async () => {
    const parent = await create('put');
    const res = await api.put(`${base}/put/scale?fieldManager=scaler`, scale('put', 5, { resourceVersion: parent.metadata.resourceVersion }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ kind: 'Scale', spec: { replicas: 5 }, metadata: { name: 'put', uid: parent.metadata.uid } });
    const after = (await api.get(`${base}/put`)).body;
    expect(after.spec.replicas).toBe(5);
    expect(after.metadata.resourceVersion).toBe(res.body.metadata.resourceVersion);
    expect(after.metadata.generation).toBe(parent.metadata.generation + 1);
    expect({ ...after.spec, replicas: 2 }).toEqual(parent.spec);
    expect(after.metadata.managedFields.find((m: { manager: string }) => m.manager === 'scaler')).toEqual({
      manager: 'scaler',
      operation: 'Update',
      apiVersion: 'apps/v1',
      time: expect.any(String),
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:spec': { 'f:replicas': {} } },
      subresource: 'scale',
    });
  });

  test('PUT without a resourceVersion is unconditional; without spec it means 0 replicas', async () => {
    await create('unconditional');
    expect((await api.put(`${base}/unconditional/scale`, scale('unconditional', 7))).body.spec).toEqual({ replicas: 7 });
    const zero = await api.put(`${base}/unconditional/scale`, { kind: 'Scale', apiVersion: 'autoscaling/v1', metadata: { name: 'unconditional' } });
    expect(zero.status).toBe(200);
    expect((await api.get(`${base}/unconditional`)).body.spec.replicas).toBe(0);
  });

  test('PUT with a stale resourceVersion is a 409 naming the parent resource', async () => {
    const parent = await create('stale');
    await api.put(`${base}/stale/scale`, scale('stale', 3));
    const res = await api.put(`${base}/stale/scale`, scale('stale', 4, { resourceVersion: parent.metadata.resourceVersion }));
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      reason: 'Conflict',
      message: `Operation cannot be fulfilled on ${group} "stale": the object has been modified; please apply your changes to the latest version and try again`,
      details: { name: 'stale', group: 'apps', kind: resource },
    });
  });

  test('PUT with another uid is a 409 precondition failure on <resource>/scale', async () => {
    const parent = await create('uid');
    const res = await api.put(`${base}/uid/scale`, scale('uid', 4, { uid: 'not-the-uid' }));
    expect(res.status).toBe(409);
    expect(res.body.message).toBe(
      `Operation cannot be fulfilled on ${resource}/scale.apps "uid": Precondition failed: UID in precondition: not-the-uid, UID in object meta: ${parent.metadata.uid}`,
    );
  });

  test('negative replicas are a 422 on Scale.autoscaling', async () => {
    await create('negative');
    const res = await api.put(`${base}/negative/scale`, scale('negative', -1));
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      reason: 'Invalid',
      message: 'Scale.autoscaling "negative" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
      details: { name: 'negative', group: 'autoscaling', kind: 'Scale', causes: [{ reason: 'FieldValueInvalid', field: 'spec.replicas' }] },
    });
    const patched = await api.patch(`${base}/negative/scale`, { spec: { replicas: -3 } }, MERGE);
    expect(patched.status).toBe(422);
    expect((await api.get(`${base}/negative`)).body.spec.replicas).toBe(2);
  });

  test('a name unlike the URL, another namespace or another kind is a 400', async () => {
    await create('named');
    const other = await api.put(`${base}/named/scale`, scale('other', 1));
    expect(other.status).toBe(400);
    expect(other.body.message).toBe('the name of the object (other) does not match the name on the URL (named)');
    const ns = await api.put(`${base}/named/scale`, scale('named', 1, { namespace: 'kube-system' }));
    expect(ns.status).toBe(400);
    expect(ns.body.message).toBe('the namespace of the provided object does not match the namespace sent on the request');
    const wrongKind = await api.put(`${base}/named/scale`, { ...workload(kind, 'named', 1) });
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.body.message).toContain('cannot be handled as a Scale');
    const badType = await api.put(`${base}/named/scale`, { ...scale('named', 1), spec: { replicas: 'many' } });
    expect(badType.status).toBe(400);
    expect(badType.body.message).toBe(
      'Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32',
    );
  });

  test('GET, PUT and PATCH of the scale of a missing object are 404s naming the parent resource', async () => {
    const message = `${group} "ghost" not found`;
    for (const res of [
      await api.get(`${base}/ghost/scale`),
      await api.put(`${base}/ghost/scale`, scale('ghost', 1)),
      await api.patch(`${base}/ghost/scale`, { spec: { replicas: 1 } }, MERGE),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ reason: 'NotFound', message, details: { name: 'ghost', group: 'apps', kind: resource } });
    }
  });

  test('merge, JSON and strategic merge patches apply to the Scale', async () => {
    await create('patched');
    const merge = await api.patch(`${base}/patched/scale`, { spec: { replicas: 3 } }, MERGE);
    expect(merge.status).toBe(200);
    expect(merge.body).toMatchObject({ kind: 'Scale', spec: { replicas: 3 } });
    const json = await api.patch(
      `${base}/patched/scale`,
      [
        { op: 'test', path: '/spec/replicas', value: 3 },
        { op: 'replace', path: '/spec/replicas', value: 4 },
      ],
      JSON_PATCH,
    );
    expect(json.body.spec).toEqual({ replicas: 4 });
    const strategic = await api.patch(`${base}/patched/scale`, { spec: { replicas: 6 } }, STRATEGIC);
    expect(strategic.body.spec).toEqual({ replicas: 6 });
    expect((await api.get(`${base}/patched`)).body.spec.replicas).toBe(6);
    const failed = await api.patch(`${base}/patched/scale`, [{ op: 'test', path: '/spec/replicas', value: 1 }], JSON_PATCH);
    expect(failed.status).not.toBe(200);
  });

  test('a patch of status through scale changes nothing', async () => {
    const parent = await create('status-only');
    const res = await api.patch(`${base}/status-only/scale?fieldManager=scaler`, { status: { replicas: 42 } }, MERGE);
    expect(res.status).toBe(200);
    expect(res.body.status.replicas).toBe(0);
    const after = (await api.get(`${base}/status-only`)).body;
    expect(after.metadata.resourceVersion).toBe(parent.metadata.resourceVersion);
    expect(after.status).toEqual(parent.status);
  });

  test('dry run answers with the new Scale and writes nothing', async () => {
    const parent = await create('dry');
    const res = await api.patch(`${base}/dry/scale?dryRun=All`, { spec: { replicas: 9 } }, MERGE);
    expect(res.body.spec).toEqual({ replicas: 9 });
    expect((await api.get(`${base}/dry`)).body.metadata.resourceVersion).toBe(parent.metadata.resourceVersion);
  });

  test('server-side apply of a Scale: conflicts with the owner of spec.replicas, force takes it, equal values share it', async () => {
    const config = workload(kind, 'applied', 1);
    expect((await api.patch(`${base}/applied?fieldManager=apply_test`, config, APPLY)).status).toBe(201);
    const conflict = await api.patch(`${base}/applied/scale?fieldManager=apply_scale`, scale('applied', 17), APPLY);
    expect(conflict.status).toBe(409);
    expect(conflict.body.message).toBe('Apply failed with 1 conflict: conflict with "apply_test": .spec.replicas');
    const forced = await api.patch(`${base}/applied/scale?fieldManager=apply_scale&force=true`, scale('applied', 17), APPLY);
    expect(forced.status).toBe(200);
    expect(forced.body).toMatchObject({ kind: 'Scale', spec: { replicas: 17 } });
    const owners = async (): Promise<string[]> =>
      (await api.get(`${base}/applied`)).body.metadata.managedFields
        .filter((m: { fieldsV1: { 'f:spec'?: Record<string, unknown> } }) => m.fieldsV1['f:spec']?.['f:replicas'])
        .map((m: { manager: string; operation: string; subresource?: string }) => `${m.manager}/${m.operation}/${m.subresource ?? ''}`)
        .sort();
    expect(await owners()).toEqual(['apply_scale/Apply/scale']);
    await api.put(`${base}/applied/scale?fieldManager=replace_test`, scale('applied', 7));
    expect(await owners()).toEqual(['replace_test/Update/scale']);
    expect((await api.patch(`${base}/applied/scale?fieldManager=co_owner`, scale('applied', 7), APPLY)).status).toBe(200);
    expect(await owners()).toEqual(['co_owner/Apply/scale', 'replace_test/Update/scale']);
    const updateConflict = await api.patch(`${base}/applied/scale?fieldManager=late`, scale('applied', 8), APPLY);
    expect(updateConflict.status).toBe(409);
    // Managers that wrote through the main resource or with Update are named in the Scale's version, as kube-apiserver converts them.
    expect(updateConflict.body.message).toBe(
      'Apply failed with 2 conflicts: conflicts with "co_owner" with subresource "scale":\n- .spec.replicas\nconflicts with "replace_test" with subresource "scale" using autoscaling/v1:\n- .spec.replicas',
    );
    const wrongKind = await api.patch(`${base}/applied/scale?fieldManager=x`, config, APPLY);
    expect(wrongKind.status).toBe(400);
    expect(wrongKind.body.message).toBe(`invalid object type: apps/v1, Kind=${kind}`);
  });

  test('Scale in protobuf, both ways', async () => {
    await create('proto');
    const got = await fetch(`${server.url}${base}/proto/scale`, { headers: { Accept: PROTOBUF } });
    expect(got.headers.get('content-type')).toBe(PROTOBUF);
    const decoded = decodeProtobuf(Buffer.from(await got.arrayBuffer()));
    expect(decoded).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: 'proto' },
      spec: { replicas: 2 },
      status: { replicas: 0, selector: 'app=proto' },
    });
    const put = await fetch(`${server.url}${base}/proto/scale`, {
      method: 'PUT',
      headers: { 'Content-Type': PROTOBUF, Accept: PROTOBUF },
      body: encodeProtobuf({ ...decoded, spec: { replicas: 0 } }),
    });
    expect(put.status).toBe(200);
    expect(decodeProtobuf(Buffer.from(await put.arrayBuffer()))).toMatchObject({ kind: 'Scale', spec: {}, status: { replicas: 0 } });
    expect((await api.get(`${base}/proto`)).body.spec.replicas).toBe(0);
  });

  test('Table output has the Scale printer columns', async () => {
    await create('table', 3);
    const res = await api.get(`${base}/table/scale`, { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' });
    expect(res.body.columnDefinitions.map((c: { name: string; type: string }) => `${c.name}:${c.type}`)).toEqual([
      'Name:string',
      'Desired:integer',
      'Available:integer',
      'Age:string',
    ]);
    expect(res.body.rows[0].cells.slice(0, 3)).toEqual(['table', 3, 0]);
  });

  test('only get, update and patch are served', async () => {
    await create('verbs');
    expect((await api.post(`${base}/verbs/scale`, scale('verbs', 1))).status).toBe(405);
    expect((await api.delete(`${base}/verbs/scale`)).status).toBe(405);
  });
});

test('daemonsets have no scale subresource', async () => {
  expect((await api.get(`${APPS}/daemonsets/x/scale`)).status).toBe(404);
});

describe('discovery and OpenAPI', () => {
  test('legacy: <resource>/scale is an autoscaling/v1 Scale, listed before status', async () => {
    const { resources } = (await api.get('/apis/apps/v1')).body as { resources: { name: string }[] };
    for (const { resource } of KINDS) {
      const names = resources.map((r) => r.name).filter((n) => n.startsWith(`${resource}/`));
      expect(names).toEqual([`${resource}/scale`, `${resource}/status`]);
      expect(resources.find((r) => r.name === `${resource}/scale`)).toEqual({
        name: `${resource}/scale`,
        singularName: '',
        namespaced: true,
        group: 'autoscaling',
        version: 'v1',
        kind: 'Scale',
        verbs: ['get', 'patch', 'update'],
      });
    }
    expect(resources.map((r) => r.name)).not.toContain('daemonsets/scale');
  });

  test('aggregated: a scale subresource whose responseKind is autoscaling/v1 Scale', async () => {
    const res = await api.get('/apis', { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
    const apps = res.body.items.find((g: { metadata: { name: string } }) => g.metadata.name === 'apps').versions[0].resources;
    for (const { resource, kind } of KINDS) {
      expect(apps.find((r: { resource: string }) => r.resource === resource).subresources).toEqual([
        { subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'patch', 'update'] },
        { subresource: 'status', responseKind: { group: 'apps', version: 'v1', kind }, verbs: ['get', 'patch', 'update'] },
      ]);
    }
  });

  test('OpenAPI v3 and v2 describe the scale paths with the Scale schema', async () => {
    const v3 = (await api.get('/openapi/v3/apis/apps/v1')).body;
    const path = v3.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'];
    expect(path.get).toMatchObject({
      operationId: 'readAppsV1NamespacedDeploymentScale',
      'x-kubernetes-group-version-kind': { group: 'autoscaling', version: 'v1', kind: 'Scale' },
      responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/io.k8s.api.autoscaling.v1.Scale' } } } } },
    });
    expect(path.put.requestBody.content['*/*'].schema.$ref).toBe('#/components/schemas/io.k8s.api.autoscaling.v1.Scale');
    expect(path.patch.operationId).toBe('patchAppsV1NamespacedDeploymentScale');
    expect(v3.components.schemas['io.k8s.api.autoscaling.v1.ScaleStatus']).toMatchObject({
      required: ['replicas'],
      properties: { selector: { type: 'string' } },
    });
    const v2 = (await api.get('/openapi/v2')).body;
    expect(v2.paths['/apis/apps/v1/namespaces/{namespace}/statefulsets/{name}/scale'].put.responses['200'].schema.$ref).toBe(
      '#/definitions/io.k8s.api.autoscaling.v1.Scale',
    );
    expect(v2.definitions['io.k8s.api.autoscaling.v1.Scale']['x-kubernetes-group-version-kind']).toEqual([
      { group: 'autoscaling', kind: 'Scale', version: 'v1' },
    ]);
  });
});
