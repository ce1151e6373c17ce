import { eventually } from '../harness/etcd-keys';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';
import { createEstablished, simpleCrd } from '../harness/crds';

/**
 * Every write passes admission inside the store once the store knows whether it creates or
 * updates (PUT-create and apply-create are CREATEs), status writes are validated by the kind's
 * status strategy, and PUT without a usable resourceVersion is an unconditional update.
 */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
const APPLY = 'application/apply-patch+yaml';
const MERGE = 'application/merge-patch+json';

beforeAll(async () => {
  server = await startTestServer();
  api = new Api(server.url);
});

afterAll(async () => {
  await server.close();
});

const lease = (name: string, namespace?: string) => ({
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name, ...(namespace ? { namespace } : {}) },
  spec: { holderIdentity: 'me' },
});
const configMap = (name: string, data: Record<string, string> = {}, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...extra },
  data,
});
const deployment = (name: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } },
  },
});
const leases = (ns: string) => `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases`;
const configMaps = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

const namespaceNotFound = (name: string) => ({
  kind: 'Status',
  status: 'Failure',
  reason: 'NotFound',
  code: 404,
  message: `namespaces "${name}" not found`,
  details: { name, kind: 'namespaces' },
});

describe('writes into a namespace that does not exist', () => {
  test('server-side apply is refused with the namespace NotFound', async () => {
    const res = await api.patch(`${configMaps('no-such-ns')}/applied?fieldManager=test`, configMap('applied', { a: '1' }), APPLY);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject(namespaceNotFound('no-such-ns'));
    expect((await api.get(`${configMaps('no-such-ns')}/applied`)).status).toBe(404);
  });

  test('a PUT that would create a Lease is refused with the namespace NotFound', async () => {
    const res = await api.put(`${leases('no-such-ns')}/held`, lease('held'));
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject(namespaceNotFound('no-such-ns'));
    expect((await api.get(`${leases('no-such-ns')}/held`)).status).toBe(404);
  });

  test('dry runs are admitted too', async () => {
    const res = await api.put(`${leases('no-such-ns')}/dry?dryRun=All`, lease('dry'));
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('namespaces "no-such-ns" not found');
  });

  test('an applied configuration that lists managedFields, even none, is a 400; a null one is not', async () => {
    for (const managedFields of [[], [{ manager: 'm', operation: 'Apply', fieldsType: 'FieldsV1', fieldsV1: {} }]]) {
      const res = await api.patch(`${configMaps('default')}/apply-managed?fieldManager=test`, configMap('apply-managed', { a: '1' }, { managedFields }), APPLY);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: 'metadata.managedFields must be nil' });
    }
    expect((await api.get(`${configMaps('default')}/apply-managed`)).status).toBe(404);
    const nulled = await api.patch(
      `${configMaps('default')}/apply-managed?fieldManager=test`,
      configMap('apply-managed', { a: '1' }, { managedFields: null }),
      APPLY,
    );
    expect(nulled.status).toBe(201);
  });

  test('in a namespace that exists, PUT and apply create', async () => {
    expect((await api.put(`${leases('default')}/put-created`, lease('put-created'))).status).toBe(201);
    const applied = await api.patch(`${configMaps('default')}/apply-created?fieldManager=test`, configMap('apply-created', { a: '1' }), APPLY);
    expect(applied.status).toBe(201);
  });
});

describe('admission sees a create as CREATE and an update as UPDATE', () => {
  const NS = 'terminating-ns';

  beforeAll(async () => {
    expect((await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status).toBe(201);
    // A finalizer no controller removes keeps the namespace Terminating while the test runs.
    expect((await api.post(configMaps(NS), configMap('held', { a: '1' }, { finalizers: ['example.com/hold'] }))).status).toBe(201);
    expect((await api.delete(`/api/v1/namespaces/${NS}`)).status).toBe(200);
    for (let i = 0; i < 100; i++) {
      const cm = await api.get(`${configMaps(NS)}/held`);
      if (cm.body.metadata?.deletionTimestamp) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  });

  afterAll(async () => {
    await api.patch(`${configMaps(NS)}/held`, { metadata: { finalizers: null } }, MERGE);
  });

  const terminating = (name: string) => ({
    status: 403,
    reason: 'Forbidden',
    message: `${name} "x" is forbidden: unable to create new content in namespace ${NS} because it is being terminated`,
  });

  test('a PUT that creates is refused in a terminating namespace', async () => {
    const res = await api.put(`${leases(NS)}/x`, lease('x'));
    expect({ status: res.status, reason: res.body.reason, message: res.body.message }).toEqual(terminating('leases.coordination.k8s.io'));
  });

  test('an apply that creates is refused in a terminating namespace', async () => {
    const res = await api.patch(`${configMaps(NS)}/x?fieldManager=test`, configMap('x', { a: '1' }), APPLY);
    expect({ status: res.status, reason: res.body.reason, message: res.body.message }).toEqual(terminating('configmaps'));
  });

  test('updates of what is already there are UPDATEs and go through', async () => {
    const current = await api.get(`${configMaps(NS)}/held`);
    expect(current.body.metadata.deletionTimestamp).toBeDefined();
    const put = await api.put(`${configMaps(NS)}/held`, { ...current.body, data: { a: '2' } });
    expect(put.status).toBe(200);
    const applied = await api.patch(
      `${configMaps(NS)}/held?fieldManager=test`,
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held' }, data: { b: '1' } },
      APPLY,
    );
    expect(applied.status).toBe(200);
    expect(applied.body.data).toEqual({ a: '2', b: '1' });
  });
});

describe('status writes are validated by the status strategy', () => {
  const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';

  beforeAll(async () => {
    expect((await api.post(DEPLOYMENTS, deployment('d'))).status).toBe(201);
  });

  test('a negative replica count is a 422 with kube-apiserver message', async () => {
    const res = await api.patch(`${DEPLOYMENTS}/d/status`, { status: { replicas: -5 } }, MERGE);
    expect(res.status).toBe(422);
    // The other counters are Go's zeros, above -5: ValidateDeploymentStatus reports them as well.
    const above = (f: string) => ({ reason: 'FieldValueInvalid', message: 'Invalid value: 0: cannot be greater than status.replicas', field: `status.${f}` });
    expect(res.body).toMatchObject({
      reason: 'Invalid',
      message:
        'Deployment.apps "d" is invalid: [status.replicas: Invalid value: -5: must be greater than or equal to 0, ' +
        'status.updatedReplicas: Invalid value: 0: cannot be greater than status.replicas, ' +
        'status.readyReplicas: Invalid value: 0: cannot be greater than status.replicas, ' +
        'status.availableReplicas: Invalid value: 0: cannot be greater than status.replicas]',
      details: {
        name: 'd',
        group: 'apps',
        kind: 'Deployment',
        causes: [
          { reason: 'FieldValueInvalid', message: 'Invalid value: -5: must be greater than or equal to 0', field: 'status.replicas' },
          above('updatedReplicas'),
          above('readyReplicas'),
          above('availableReplicas'),
        ],
      },
    });
    expect((await api.get(`${DEPLOYMENTS}/d`)).body.status.replicas).not.toBe(-5);
  });

  test('counters may not exceed the replicas, through PUT as through PATCH', async () => {
    const current = await api.get(`${DEPLOYMENTS}/d`);
    // Unconditional (no resourceVersion): the deployment controller may write the status between the GET and the PUT.
    const { resourceVersion: _rv, ...metadata } = current.body.metadata;
    const res = await api.put(`${DEPLOYMENTS}/d/status`, { ...current.body, metadata, status: { replicas: 1, readyReplicas: 2, availableReplicas: 1 } });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('Deployment.apps "d" is invalid: status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas');
  });

  test('a valid status is written', async () => {
    const res = await api.patch(`${DEPLOYMENTS}/d/status`, { status: { replicas: 2, readyReplicas: 1, availableReplicas: 1 } }, MERGE);
    expect(res.status).toBe(200);
    expect(res.body.status).toMatchObject({ replicas: 2, readyReplicas: 1, availableReplicas: 1 });
  });

  test('a namespace phase must follow its deletionTimestamp', async () => {
    const res = await api.patch('/api/v1/namespaces/default/status', { status: { phase: 'Terminating' } }, MERGE);
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(
      'Namespace "default" is invalid: status.Phase: Invalid value: "Terminating": may only be \'Active\' if `deletionTimestamp` is empty',
    );
  });

  test('a Service load balancer address must be an IP', async () => {
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'lb' }, spec: { type: 'LoadBalancer', ports: [{ port: 80 }] } };
    expect((await api.post('/api/v1/namespaces/default/services', svc)).status).toBe(201);
    const res = await api.patch('/api/v1/namespaces/default/services/lb/status', { status: { loadBalancer: { ingress: [{ ip: 'not-an-ip' }] } } }, MERGE);
    expect(res.status).toBe(422);
    expect(res.body.details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "not-an-ip": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
        field: 'status.loadBalancer.ingress[0].ip',
      },
    ]);
  });

  test('a node capacity may not be negative', async () => {
    expect((await api.post('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'cap-node' } })).status).toBe(201);
    const res = await api.patch('/api/v1/nodes/cap-node/status', { status: { capacity: { cpu: '-1' } } }, MERGE);
    expect(res.status).toBe(422);
    // Allocatable defaults to the capacity, so it is refused as well.
    expect(res.body.message).toBe(
      'Node "cap-node" is invalid: [status.capacity[cpu]: Invalid value: "-1": must be greater than or equal to 0, status.allocatable[cpu]: Invalid value: "-1": must be greater than or equal to 0]',
    );
  });
});

describe('unconditional updates', () => {
  test('a ConfigMap replaced with resourceVersion "0" or none is overwritten', async () => {
    expect((await api.post(configMaps('default'), configMap('replaced', { a: '1' }))).status).toBe(201);
    const zero = await api.put(`${configMaps('default')}/replaced`, {
      ...configMap('replaced', { a: '2' }),
      metadata: { name: 'replaced', resourceVersion: '0' },
    });
    expect(zero.status).toBe(200);
    expect(zero.body.data).toEqual({ a: '2' });
    expect(zero.body.metadata.resourceVersion).not.toBe('0');
    const none = await api.put(`${configMaps('default')}/replaced`, configMap('replaced', { a: '3' }));
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual({ a: '3' });
  });

  test('a stale resourceVersion is still a conflict', async () => {
    expect((await api.post(configMaps('default'), configMap('stale', { a: '1' }))).status).toBe(201);
    const first = await api.get(`${configMaps('default')}/stale`);
    expect((await api.put(`${configMaps('default')}/stale`, { ...first.body, data: { a: '2' } })).status).toBe(200);
    const again = await api.put(`${configMaps('default')}/stale`, { ...first.body, data: { a: '3' } });
    expect(again.status).toBe(409);
  });

  test('a Node replaced with resourceVersion "0" (kubectl replace -f node.json) is overwritten', async () => {
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'replaced-node', labels: { a: '1' } }, spec: {} };
    expect((await api.post('/api/v1/nodes', node)).status).toBe(201);
    const res = await api.put('/api/v1/nodes/replaced-node', { ...node, metadata: { ...node.metadata, labels: { a: '2' }, resourceVersion: '0' } });
    expect(res.status).toBe(200);
    expect(res.body.metadata.labels).toEqual({ a: '2' });
  });

  test('a PUT-create of a kind that allows it ignores resourceVersion "0"', async () => {
    const res = await api.put(`${leases('default')}/zero`, { ...lease('zero'), metadata: { name: 'zero', resourceVersion: '0' } });
    expect(res.status).toBe(201);
  });
});

describe('custom resources', () => {
  const WIDGETS = '/apis/write.example.com/v1/namespaces/default/widgets';
  const widget = (name: string, status?: Record<string, unknown>) => ({
    apiVersion: 'write.example.com/v1',
    kind: 'Widget',
    metadata: { name },
    spec: { size: 1 },
    ...(status ? { status } : {}),
  });

  beforeAll(async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.write.example.com' },
      spec: {
        group: 'write.example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: { type: 'object', properties: { size: { type: 'integer' } } },
                  status: { type: 'object', properties: { ready: { type: 'integer', minimum: 0 } } },
                },
              },
            },
          },
        ],
      },
    };
    expect((await api.post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
    await eventually('widgets served', async () => ((await api.get(WIDGETS)).status === 200 ? true : undefined));
    expect((await api.post(WIDGETS, widget('w'))).status).toBe(201);
  });

  test('a status that breaks the schema is a 422', async () => {
    const res = await api.patch(`${WIDGETS}/w/status`, { status: { ready: -1 } }, MERGE);
    expect(res.status).toBe(422);
    expect(res.body.details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: -1: status.ready in body should be greater than or equal to 0', field: 'status.ready' },
    ]);
    expect((await api.patch(`${WIDGETS}/w/status`, { status: { ready: 1 } }, MERGE)).status).toBe(200);
  });

  test('an update without resourceVersion is refused, as for every custom resource', async () => {
    const res = await api.put(`${WIDGETS}/w`, { ...widget('w'), metadata: { name: 'w', resourceVersion: '0' } });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('Widget.write.example.com "w" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update');
  });
});

describe('JSON patch as json-patch v4 applies it under kube-apiserver', () => {
  const JSON_PATCH = 'application/json-patch+json';
  const path = `${configMaps('default')}/v4-reads`;

  test('replace of a missing key sets it; indices from the end and with a sign; test of a missing key with null passes; add without a value adds null', async () => {
    expect(
      (await api.post(configMaps('default'), configMap('v4-reads', { a: '1' }, { labels: { x: 'y' }, finalizers: ['e.io/a', 'e.io/b', 'e.io/c'] }))).status,
    ).toBe(201);
    const res = await api.patch(
      path,
      [
        { op: 'replace', path: '/metadata/labels/missing', value: 'set' },
        { op: 'remove', path: '/metadata/finalizers/-1' },
        { op: 'add', path: '/metadata/finalizers/+0', value: 'e.io/first' },
        { op: 'add', path: '/metadata/finalizers/-1', value: 'e.io/last' },
        { op: 'test', path: '/data/nothing', value: null },
        { op: 'test', path: '/data/nothing' },
        { op: 'add', path: '/data/empty' },
      ],
      JSON_PATCH,
    );
    expect(res.status).toBe(200);
    expect(res.body.metadata.labels).toEqual({ x: 'y', missing: 'set' });
    expect(res.body.metadata.finalizers).toEqual(['e.io/first', 'e.io/a', 'e.io/b', 'e.io/last']);
    expect(res.body.data).toEqual({ a: '1', empty: '' });
  });

  test('what v4 refuses stays refused: an index past the end, a test of a present key without a value, a missing parent', async () => {
    for (const op of [
      { op: 'remove', path: '/metadata/finalizers/-9' },
      { op: 'test', path: '/data/a' },
      { op: 'replace', path: '/spec/nothing/x', value: 1 },
    ]) {
      const res = await api.patch(path, [op], JSON_PATCH);
      expect([op, res.status]).toEqual([op, 422]);
    }
    expect((await api.patch(path, [{ op: 'remove', path: '/metadata/finalizers' }], JSON_PATCH)).status).toBe(200);
  });
});

describe('a create whose body names another kind', () => {
  const pods = '/api/v1/namespaces/default/pods';
  const scheme = 'pkg/api/legacyscheme/scheme.go:30';

  test('json.Serializer.Decode: a kind the scheme cannot make is NotRegistered, a registered one fails to convert', async () => {
    for (const [apiVersion, kind, cause] of [
      ['v1', 'pod', `no kind "pod" is registered for version "v1" in scheme "${scheme}"`],
      ['v1', 'Nope', `no kind "Nope" is registered for version "v1" in scheme "${scheme}"`],
      ['v1', 'Deployment', `no kind "Deployment" is registered for version "v1" in scheme "${scheme}"`],
      ['v1', 'Service', 'converting (v1.Service) to (core.Pod): unknown conversion'],
      // metav1.AddToGroupVersion: the options kinds are in every group-version, Status in any version.
      ['v1', 'DeleteOptions', 'converting (v1.DeleteOptions) to (core.Pod): unknown conversion'],
      ['v1', 'Status', 'converting (v1.Status) to (core.Pod): unknown conversion'],
    ] as const) {
      const res = await api.post(pods, { apiVersion, kind, metadata: { name: 'p' } });
      expect([kind, res.status, res.body.reason]).toEqual([kind, 400, 'BadRequest']);
      expect(res.body.message).toBe(`${kind} in version "v1" cannot be handled as a Pod: ${cause}`);
    }
  });

  test("json.Serializer.Decode: the endpoint's kind in a version its scheme does not have is NotRegistered too", async () => {
    for (const [apiVersion, version] of [
      ['v2', 'v2'],
      ['apps/v1', 'v1'],
    ] as const) {
      const res = await api.post(pods, { apiVersion, kind: 'Pod', metadata: { name: 'p' } });
      expect([apiVersion, res.status, res.body.reason]).toEqual([apiVersion, 400, 'BadRequest']);
      expect(res.body.message).toBe(
        `Pod in version "${version}" cannot be handled as a Pod: no kind "Pod" is registered for version "${apiVersion}" in scheme "${scheme}"`,
      );
    }
  });

  test("json.Serializer.Decode reads apiVersion by schema.ParseGroupVersion, its gaps filled with the endpoint's (gvkWithDefaults)", async () => {
    const deployments = '/apis/apps/v1/namespaces/default/deployments';
    const unrecognized = (kind: string, body: object) =>
      `the object provided is unrecognized (must be of type ${kind}): unexpected GroupVersion string: a/b/c (${JSON.stringify(body).slice(0, 30)} ...)`;
    for (const [path, make, apiVersion, answer] of [
      [configMaps('default'), configMap, 'a/b/c', (body: object) => unrecognized('ConfigMap', body)],
      [deployments, deployment, 'a/b/c', (body: object) => unrecognized('Deployment', body)],
      [configMaps('default'), configMap, '/', 'v1'],
      [deployments, deployment, '/', 'apps/v1'],
      [configMaps('default'), configMap, '/v1', 'v1'],
      [
        deployments,
        deployment,
        '/v1',
        () => `Deployment in version "v1" cannot be handled as a Deployment: no kind "Deployment" is registered for version "v1" in scheme "${scheme}"`,
      ],
      [deployments, deployment, 'apps/', 'apps/v1'],
      [
        configMaps('default'),
        configMap,
        'apps/',
        (body: object) => `ConfigMap in version "" cannot be handled as a ConfigMap: Object 'apiVersion' is missing in '${JSON.stringify(body)}'`,
      ],
    ] as const) {
      const body = { ...make('odd-group-version'), apiVersion };
      const res = await api.post(`${path}?dryRun=All`, body);
      if (typeof answer === 'string') expect([path, apiVersion, res.status, res.body.apiVersion]).toEqual([path, apiVersion, 201, answer]);
      else expect([path, apiVersion, res.status, res.body.message]).toEqual([path, apiVersion, 400, answer(body)]);
    }
  });
});

/** A Go map of the object's own members: json-patch v4 writes the keys of what it decoded sorted. */
const goMap = (obj: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    Object.keys(obj)
      .sort()
      .map((k) => [k, obj[k]]),
  );
/** jsonPatcher.applyPatchToCurrentObject's 422: the patched JSON, and the decoder's error. */
const patchInvalid = (patchedJson: string, cause: string) => ({
  code: 422,
  reason: 'Invalid',
  message: ` "" is invalid: patch: Invalid value: ${JSON.stringify(patchedJson)}: ${cause}`,
  details: { causes: [{ reason: 'FieldValueInvalid', field: 'patch', message: `Invalid value: ${JSON.stringify(patchedJson)}: ${cause}` }] },
});

describe('a patch whose result names another kind or apiVersion', () => {
  const JSON_PATCH = 'application/json-patch+json';
  const SMP = 'application/strategic-merge-patch+json';
  const path = `${configMaps('default')}/renamed`;
  beforeAll(async () => {
    expect((await api.post(configMaps('default'), configMap('renamed'))).status).toBe(201);
  });

  test('JSON and merge patches: decoding the patched JSON into a ConfigMap fails, a 422 against the JSON json-patch v4 wrote', async () => {
    const got = (await api.get(path)).body;
    for (const [patch, type, patched, cause] of [
      [
        { kind: 'Secret', data: { z: '1', a: '2' } },
        MERGE,
        { kind: 'Secret', data: { a: '2', z: '1' } },
        'converting (v1.Secret) to (core.ConfigMap): unknown conversion',
      ],
      [
        [{ op: 'replace', path: '/kind', value: 'Widget' }],
        JSON_PATCH,
        { kind: 'Widget' },
        'no kind "Widget" is registered for version "v1" in scheme "pkg/api/legacyscheme/scheme.go:30"',
      ],
      [
        { apiVersion: 'apps/v1' },
        MERGE,
        { apiVersion: 'apps/v1' },
        'no kind "ConfigMap" is registered for version "apps/v1" in scheme "pkg/api/legacyscheme/scheme.go:30"',
      ],
    ] as const) {
      const res = await api.patch(path, patch, type);
      expect([patch, res.status, res.body]).toEqual([patch, 422, expect.objectContaining(patchInvalid(JSON.stringify(goMap({ ...got, ...patched })), cause))]);
    }
  });

  test('the patched apiVersion as json.Serializer.Decode reads it: ParseGroupVersion, then gvkWithDefaults', async () => {
    const got = (await api.get(path)).body;
    const patchedJson = (apiVersion: string) => JSON.stringify(goMap({ ...got, apiVersion }));
    const unexpected = await api.patch(path, { apiVersion: 'a/b/c' }, MERGE);
    expect([unexpected.status, unexpected.body]).toEqual([
      422,
      expect.objectContaining(patchInvalid(patchedJson('a/b/c'), 'unexpected GroupVersion string: a/b/c')),
    ]);
    const noVersion = await api.patch(path, { apiVersion: 'apps/' }, MERGE);
    expect([noVersion.status, noVersion.body]).toEqual([
      422,
      expect.objectContaining(patchInvalid(patchedJson('apps/'), `Object 'apiVersion' is missing in '${patchedJson('apps/')}'`)),
    ]);
    const served = await api.patch(`${path}?dryRun=All`, { apiVersion: '/v1' }, MERGE);
    expect([served.status, served.body.apiVersion]).toEqual([200, 'v1']);
  });

  test("a merge patch removing the kind leaves the ConfigMap's; a strategic merge patch's names are dropped", async () => {
    const removed = await api.patch(path, { kind: null, data: { a: '1' } }, MERGE);
    expect([removed.status, removed.body.kind, removed.body.data]).toEqual([200, 'ConfigMap', { a: '1' }]);
    const smp = await api.patch(path, { kind: 'Secret', apiVersion: 'apps/v1', data: { b: '2' } }, SMP);
    expect([smp.status, smp.body.apiVersion, smp.body.kind, smp.body.data]).toEqual([200, 'v1', 'ConfigMap', { a: '1', b: '2' }]);
  });

  test('a custom resource keeps what it says and its validation refuses it (customResourceValidator.ValidateTypeMeta)', async () => {
    await createEstablished(api, simpleCrd('renames.example.com', 'marks', 'Mark'));
    const marks = '/apis/renames.example.com/v1/namespaces/default/marks';
    expect((await api.post(marks, { apiVersion: 'renames.example.com/v1', kind: 'Mark', metadata: { name: 'm' } })).status).toBe(201);
    const res = await api.patch(`${marks}/m`, { kind: 'Other', apiVersion: 'other.example.com/v2' }, MERGE);
    expect([res.status, res.body.reason]).toEqual([422, 'Invalid']);
    expect(res.body.message).toBe(
      'Other.other.example.com "m" is invalid: [kind: Invalid value: "Other": must be Mark, apiVersion: Invalid value: "other.example.com/v2": must be renames.example.com/v1]',
    );
    expect(res.body.details).toMatchObject({ name: 'm', group: 'other.example.com', kind: 'Other' });
  });
});

describe('a JSON or merge patch whose result has a value of the wrong type', () => {
  const JSON_PATCH = 'application/json-patch+json';
  const templates = '/api/v1/namespaces/default/podtemplates';

  test("jsonPatcher.applyPatchToCurrentObject: 422 against the JSON json-patch v4 wrote, with the decoder's error", async () => {
    expect((await api.post(configMaps('default'), configMap('typed', { x: 'y' }))).status).toBe(201);
    const got = (await api.get(`${configMaps('default')}/typed`)).body;
    const cause = 'json: cannot unmarshal number into Go struct field ConfigMap.data of type string';
    // merged objects and a new value are Go maps, the rest the current object's bytes
    const merged = await api.patch(`${configMaps('default')}/typed`, { metadata: { labels: { z: '1', a: '2' } }, data: { a: 1 } }, MERGE);
    const mergedJson = JSON.stringify(goMap({ ...got, metadata: goMap({ ...got.metadata, labels: { a: '2', z: '1' } }), data: { a: 1, x: 'y' } }));
    expect(merged.body).toMatchObject(patchInvalid(mergedJson, cause));
    const added = await api.patch(`${configMaps('default')}/typed`, [{ op: 'add', path: '/data/a', value: 1 }], JSON_PATCH);
    expect(added.body).toMatchObject(patchInvalid(JSON.stringify(goMap({ ...got, data: { a: 1, x: 'y' } })), cause));
    expect([merged.status, added.status]).toEqual([422, 422]);
  });

  test('a JSON patch: containers on its path are Go maps, its value as written', async () => {
    const container = { name: 'web', image: 'nginx' };
    const template = { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'typed' }, template: { spec: { containers: [container] } } };
    expect((await api.post(templates, template)).status).toBe(201);
    const got = (await api.get(`${templates}/typed`)).body;
    const ports = [{ name: 'p', containerPort: '80' }];
    const res = await api.patch(`${templates}/typed`, [{ op: 'add', path: '/template/spec/containers/0/ports', value: ports }], JSON_PATCH);
    const spec = goMap({ ...got.template.spec, containers: [goMap({ ...got.template.spec.containers[0], ports })] });
    const json = JSON.stringify(goMap({ ...got, template: goMap({ ...got.template, spec }) }));
    expect([res.status, res.body]).toEqual([
      422,
      expect.objectContaining(
        patchInvalid(json, 'json: cannot unmarshal string into Go struct field ContainerPort.template.spec.containers.ports.containerPort of type int32'),
      ),
    ]);
  });
});

describe('strings as Go holds them', () => {
  test('an escaped surrogate without its partner is U+FFFD in a custom resource, from JSON and YAML; a pair stays', async () => {
    await createEstablished(api, simpleCrd('strings.example.com', 'texts', 'Text'));
    const path = '/apis/strings.example.com/v1/namespaces/default/texts';
    const json = '{"apiVersion":"strings.example.com/v1","kind":"Text","metadata":{"name":"lone"},"spec":{"a":"x\\ud800y","\\udc00k":"\\ud83d\\ude00"}}';
    expect((await api.request('POST', path, { raw: Buffer.from(json), contentType: 'application/json' })).status).toBe(201);
    expect((await api.get(`${path}/lone`)).body.spec).toEqual({ a: 'x\ufffdy', '\ufffdk': '\u{1f600}' });
    const yaml = 'apiVersion: strings.example.com/v1\nkind: Text\nmetadata:\n  name: lone-yaml\nspec:\n  a: "x\\ud800y"\n';
    expect((await api.request('POST', path, { raw: Buffer.from(yaml), contentType: 'application/yaml' })).status).toBe(201);
    expect((await api.get(`${path}/lone-yaml`)).body.spec).toEqual({ a: 'x\ufffdy' });
  });
});

describe('YAML bodies as go.yaml.in/yaml/v2 reads them under sigs.k8s.io/yaml', () => {
  test("YAML 1.1's booleans, Go's integers, yaml.v2's floats, merge keys and !!binary; timestamps stay strings; .inf fails", async () => {
    await createEstablished(api, simpleCrd('yaml11.example.com', 'notes', 'Note'));
    const path = '/apis/yaml11.example.com/v1/namespaces/default/notes';
    const yaml = [
      'apiVersion: yaml11.example.com/v1',
      'kind: Note',
      'metadata:',
      '  name: v2',
      'base: &base {shared: 1}',
      'spec:',
      '  <<: *base',
      '  flags: [yes, on, y, No, off]',
      '  ints: [012, 0o17, 0x1F, 0b101, 1_000, +12]',
      '  floats: [1e3, .5, 08]',
      '  kept: [2001-12-14, 1:20, "yes"]',
      '  binary: !!binary aGVsbG8=',
      '  strings: [1e400, _1, ._5]',
      '',
    ].join('\n');
    expect((await api.request('POST', path, { raw: Buffer.from(yaml), contentType: 'application/yaml' })).status).toBe(201);
    expect((await api.get(`${path}/v2`)).body.spec).toEqual({
      shared: 1,
      flags: [true, true, true, false, false],
      ints: [10, 15, 31, 5, 1000, 12],
      floats: [1000, 0.5, 8],
      kept: ['2001-12-14', '1:20', 'yes'],
      binary: 'hello',
      // ParseFloat fails out of range; yaml.v2 tries numbers only after a digit, a sign or a '.'.
      strings: ['1e400', '_1', '._5'],
    });
    // yaml.Unmarshal reads the first document of a stream, a trailing `---` included.
    const stream = `${yaml.replace('name: v2', 'name: first')}---\napiVersion: yaml11.example.com/v1\nkind: Note\nmetadata:\n  name: second\n---\n`;
    expect((await api.request('POST', path, { raw: Buffer.from(stream), contentType: 'application/yaml' })).status).toBe(201);
    expect((await api.get(`${path}/first`)).status).toBe(200);
    expect((await api.get(`${path}/second`)).status).toBe(404);
    const inf = await api.request('POST', path, {
      raw: Buffer.from(yaml.replace('name: v2', 'name: inf').replace('.5,', '.inf,')),
      contentType: 'application/yaml',
    });
    expect(inf.status).toBe(400);
    expect(inf.body.message).toContain('json: unsupported value: +Inf');
  });

  test('only the first document is parsed: a broken later one, or one repeating a key, is never read', async () => {
    const path = `${configMaps('default')}?fieldValidation=Strict`;
    const first = (name: string, extra = '') => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: v\n${extra}`;
    for (const [name, rest] of [
      ['after-dashes', '---\nb: [\n'],
      ['after-dots', '...\n\tnot: yaml: {\n'],
      ['repeats-later', '--- # the second\nkind: a\nkind: b\n'],
    ]) {
      const res = await api.request('POST', path, { raw: Buffer.from(first(name) + rest), contentType: 'application/yaml' });
      expect([name, res.status]).toEqual([name, 201]);
      expect(res.body.data).toEqual({ k: 'v' });
    }
    // The first document's own repeated key is still refused, whatever follows it.
    const repeated = await api.request('POST', path, { raw: Buffer.from(`${first('repeats', '  k: w\n')}---\nb: [\n`), contentType: 'application/yaml' });
    expect(repeated.status).toBe(400);
    expect(repeated.body.message).toContain('line 7: key "k" already set in map');
  });

  test('a CRLF body with a comment header before a `---` is read at once', async () => {
    // Each CRLF line doubled the first-document scan's backtracking: this body held the event loop for seconds.
    const body = `${'# header\r\n'.repeat(28)}apiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: crlf-header\r\n---\r\nb: [\r\n`;
    const started = Date.now();
    const res = await api.request('POST', `${configMaps('default')}?fieldValidation=Strict`, { raw: Buffer.from(body), contentType: 'application/yaml' });
    expect([res.status, res.body.metadata?.name]).toEqual([201, 'crlf-header']);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
