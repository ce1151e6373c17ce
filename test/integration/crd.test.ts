import { fieldCauses as causes } from '../harness/causes';
import { eventually, RawEtcd } from '../harness/etcd-keys';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

/** CustomResourceDefinitions and the custom resources they define, as kube-apiserver serves them. */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const CRONTABS = '/apis/stable.example.com/v1/namespaces/default/crontabs';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

beforeAll(async () => {
  server = await startTestServer();
  api = new Api(server.url);
});

afterAll(async () => {
  await server.close();
});

const crd = (group = 'stable.example.com', plural = 'crontabs', kind = 'CronTab', extra: Record<string, unknown> = {}) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.${group}` },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural, singular: kind.toLowerCase(), kind, shortNames: ['ct'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        selectableFields: [{ jsonPath: '.spec.image' }],
        additionalPrinterColumns: [
          { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
          { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['cronSpec'],
                properties: {
                  cronSpec: { type: 'string', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$' },
                  image: { type: 'string' },
                  replicas: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
                },
              },
              status: { type: 'object', properties: { replicas: { type: 'integer' } } },
            },
          },
        },
      },
    ],
    ...extra,
  },
});

const cronTab = (name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'stable.example.com/v1',
  kind: 'CronTab',
  metadata: { name },
  spec,
  ...extra,
});

async function established(name: string): Promise<Record<string, any>> {
  return eventually(`${name} established`, async () => {
    const res = await api.get(`${CRDS}/${name}`);
    const ok = (res.body.status?.conditions ?? []).some((c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True');
    return ok ? res.body : undefined;
  });
}

describe('a CustomResourceDefinition', () => {
  test('is created with kube defaults and an empty status, then established with its names accepted', async () => {
    const res = await api.post(CRDS, crd());
    expect(res.status).toBe(201);
    expect(res.body.spec.names.listKind).toBe('CronTabList');
    expect(res.body.spec.conversion).toEqual({ strategy: 'None' });
    expect(res.body.metadata.generation).toBe(1);
    expect(res.body.status).toEqual({ acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] });
    const live = await established('crontabs.stable.example.com');
    expect(live.status.acceptedNames).toEqual({ plural: 'crontabs', singular: 'crontab', shortNames: ['ct'], kind: 'CronTab', listKind: 'CronTabList' });
    expect(live.status.conditions.map((c: { type: string; status: string; reason: string }) => `${c.type}=${c.status} ${c.reason}`)).toEqual([
      'NamesAccepted=True NoConflicts',
      'Established=True InitialNamesAccepted',
    ]);
  });

  test('its resource appears in discovery, legacy and aggregated, and in OpenAPI v3', async () => {
    const list = await api.get('/apis/stable.example.com/v1');
    expect(list.status).toBe(200);
    expect(list.body.resources.map((r: { name: string }) => r.name)).toEqual(['crontabs', 'crontabs/status']);
    expect(list.body.resources[0]).toMatchObject({ kind: 'CronTab', namespaced: true, shortNames: ['ct'], singularName: 'crontab' });
    const groups = await api.get('/apis');
    expect(groups.body.groups.map((g: { name: string }) => g.name)).toContain('stable.example.com');
    const doc = await api.get('/openapi/v3/apis/stable.example.com/v1');
    expect(doc.status).toBe(200);
    // kubectl picks its patch type from these: no strategic merge patch for custom resources.
    expect(Object.keys(doc.body.paths['/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}'].patch.requestBody.content)).toEqual([
      'application/json-patch+json',
      'application/merge-patch+json',
      'application/apply-patch+yaml',
    ]);
    expect(doc.body.components.schemas['com.example.stable.v1.CronTab']).toMatchObject({
      type: 'object',
      'x-kubernetes-group-version-kind': [{ group: 'stable.example.com', kind: 'CronTab', version: 'v1' }],
    });
  });

  test('the OpenAPI documents follow what is served: read before a CRD, after it, after its schema changes and after it is gone', async () => {
    const NAME = 'manuals.docs.example.com';
    const GV = 'apis/docs.example.com/v1';
    const DEFINITION = 'com.example.docs.v1.Manual';
    const v3Index = async (): Promise<Record<string, { serverRelativeURL: string }>> => (await api.get('/openapi/v3')).body.paths;
    const v2Definitions = async (): Promise<Record<string, any>> => (await api.get('/openapi/v2', { accept: 'application/json' })).body.definitions;
    const specProperties = async () => Object.keys((await api.get(`/openapi/v3/${GV}`)).body.components.schemas[DEFINITION].properties.spec.properties);
    expect(await v3Index()).not.toHaveProperty([GV]);
    expect(await v2Definitions()).not.toHaveProperty([DEFINITION]);

    expect((await api.post(CRDS, crd('docs.example.com', 'manuals', 'Manual'))).status).toBe(201);
    const live = await established(NAME);
    const servedUrl = await eventually('the CRD in the v3 index', async () => (await v3Index())[GV]?.serverRelativeURL);
    expect(await specProperties()).toEqual(['cronSpec', 'image', 'replicas']);
    expect(Object.keys((await v2Definitions())[DEFINITION].properties.spec.properties)).toEqual(['cronSpec', 'image', 'replicas']);

    live.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.pages = { type: 'integer' };
    expect((await api.put(`${CRDS}/${NAME}`, live)).status).toBe(200);
    await eventually('the changed schema in the v3 document', async () => ((await specProperties()).includes('pages') ? true : undefined));
    expect((await v3Index())[GV].serverRelativeURL).not.toBe(servedUrl);
    expect(Object.keys((await v2Definitions())[DEFINITION].properties.spec.properties)).toContain('pages');

    expect((await api.delete(`${CRDS}/${NAME}`)).status).toBe(200);
    await eventually('the CRD gone from the v3 index', async () => ((await v3Index())[GV] ? undefined : true));
    expect((await api.get(`/openapi/v3/${GV}`)).status).toBe(404);
    expect(await v2Definitions()).not.toHaveProperty([DEFINITION]);
  });

  test('selectable fields must name string, integer or boolean fields of the schema', async () => {
    const bad = crd('select.example.com', 'things', 'Thing');
    (bad.spec.versions[0] as Record<string, unknown>).selectableFields = [
      { jsonPath: '.spec' },
      { jsonPath: '.spec.nothing' },
      { jsonPath: '.spec.replicas' },
      { jsonPath: '.spec.replicas' },
    ];
    const res = await api.post(CRDS, bad);
    expect(res.status).toBe(422);
    expect(causes(res.body)).toEqual([
      'spec.versions[0].selectableFields[0].jsonPath: Invalid value: ".spec": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
      'spec.versions[0].selectableFields[1].jsonPath: Invalid value: ".spec.nothing": is an invalid path: does not refer to a valid field',
      'spec.versions[0].selectableFields[3].jsonPath: Duplicate value: ".spec.replicas"',
    ]);
  });

  test('scale paths must lie under .spec and .status', async () => {
    const bad = crd('scaled.example.com', 'things', 'Thing');
    (bad.spec.versions[0].subresources as Record<string, unknown>).scale = { specReplicasPath: '.status.x', labelSelectorPath: '.metadata.labels' };
    const res = await api.post(CRDS, bad);
    expect(res.status).toBe(422);
    expect(causes(res.body)).toEqual([
      'spec.versions[0].subresources.scale.specReplicasPath: Invalid value: ".status.x": should be a json path under .spec',
      'spec.versions[0].subresources.scale.statusReplicasPath: Required value',
      'spec.versions[0].subresources.scale.labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under either .spec or .status',
    ]);
  });

  test('invalid definitions are refused with kube-apiserver causes', async () => {
    const bad = crd('example', 'widgets', 'Widget');
    bad.metadata.name = 'wrong';
    bad.spec.versions[0].storage = false;
    delete (bad.spec.versions[0] as { schema?: unknown }).schema;
    const res = await api.post(CRDS, bad);
    expect(res.status).toBe(422);
    expect(causes(res.body)).toEqual(
      expect.arrayContaining([
        'metadata.name: Invalid value: "wrong": must be spec.names.plural+"."+spec.group',
        'spec.group: Invalid value: "example": should be a domain with at least one dot',
        'spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required',
        expect.stringMatching(/^spec\.versions: Invalid value: .*: must have exactly one version marked as storage version$/),
      ]),
    );
  });
});

describe('custom resources', () => {
  beforeAll(async () => {
    await established('crontabs.stable.example.com');
  });

  test('are created with schema defaults; unknown fields are dropped with a warning; status is the subresource’s', async () => {
    const res = await api.post(CRONTABS, cronTab('nightly', { cronSpec: '0 3 * * *', image: 'busybox', extra: true }, { status: { replicas: 5 } }));
    expect(res.status).toBe(201);
    expect(res.body.spec).toEqual({ cronSpec: '0 3 * * *', image: 'busybox', replicas: 1 });
    expect(res.body.status).toBeUndefined();
    expect(res.headers.get('warning')).toContain('unknown field \\"spec.extra\\"');
    expect(res.body.metadata.generation).toBe(1);
  });

  test('are validated against the schema: 422 naming each field', async () => {
    const res = await api.post(CRONTABS, cronTab('bad', { cronSpec: 'every day', replicas: 11 }));
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/^CronTab\.stable\.example\.com "bad" is invalid: /);
    expect(causes(res.body)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^spec\.cronSpec: Invalid value: "every day": spec\.cronSpec in body should match/),
        expect.stringMatching(/^spec\.replicas: Invalid value: 11: spec\.replicas in body should be less than or equal to 10$/),
      ]),
    );
    const missing = await api.post(CRONTABS, cronTab('missing', {}));
    expect(causes(missing.body)).toEqual(['spec.cronSpec: Required value']);
    const strict = await api.post(`${CRONTABS}?fieldValidation=Strict`, cronTab('strict', { cronSpec: '* * * * *', nope: 1 }));
    expect(strict.status).toBe(400);
    expect(strict.body.message).toContain('unknown field "spec.nope"');
  });

  test('status changes only through /status; spec changes bump the generation', async () => {
    const current = (await api.get(`${CRONTABS}/nightly`)).body;
    const status = await api.put(`${CRONTABS}/nightly/status`, { ...current, spec: { ...current.spec, image: 'ignored' }, status: { replicas: 2 } });
    expect(status.status).toBe(200);
    expect(status.body.status).toEqual({ replicas: 2 });
    expect(status.body.spec.image).toBe('busybox');
    const main = await api.put(`${CRONTABS}/nightly`, { ...status.body, spec: { ...status.body.spec, replicas: 3 }, status: { replicas: 9 } });
    expect(main.status).toBe(200);
    expect(main.body.status).toEqual({ replicas: 2 });
    expect(main.body.metadata.generation).toBe(2);
  });

  test('field selectors work on the selectable fields the version declares, and only on those', async () => {
    expect((await api.post(CRONTABS, cronTab('other-image', { cronSpec: '* * * * *', image: 'alpine' }))).status).toBe(201);
    const selected = await api.get(`${CRONTABS}?fieldSelector=spec.image%3Dalpine`);
    expect(selected.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['other-image']);
    const refused = await api.get(`${CRONTABS}?fieldSelector=spec.cronSpec%3Dx`);
    expect(refused.status).toBe(400);
    expect((await api.delete(`${CRONTABS}/other-image`)).status).toBe(200);
  });

  test('tables carry the additional printer columns', async () => {
    const res = await api.get(CRONTABS, { accept: TABLE });
    expect(res.status).toBe(200);
    expect(res.body.columnDefinitions.map((c: { name: string; type: string }) => `${c.name}:${c.type}`)).toEqual([
      'Name:string',
      'Spec:string',
      'Replicas:integer',
      'Age:date',
    ]);
    expect(res.body.rows[0].cells.slice(0, 3)).toEqual(['nightly', '0 3 * * *', 3]);
  });

  test('server-side apply merges by the schema and reports conflicts', async () => {
    const apply = (manager: string, spec: Record<string, unknown>, force = false) =>
      api.request('PATCH', `${CRONTABS}/applied?fieldManager=${manager}${force ? '&force=true' : ''}`, {
        raw: JSON.stringify(cronTab('applied', spec)),
        contentType: 'application/apply-patch+yaml',
      });
    const first = await apply('alice', { cronSpec: '* * * * *', image: 'a' });
    expect(first.status).toBe(201);
    expect(first.body.metadata.managedFields[0]).toMatchObject({ manager: 'alice', operation: 'Apply', apiVersion: 'stable.example.com/v1' });
    const conflict = await apply('bob', { cronSpec: '* * * * *', image: 'b' });
    expect(conflict.status).toBe(409);
    expect(conflict.body.message).toBe('Apply failed with 1 conflict: conflict with "alice": .spec.image');
    expect((await apply('bob', { cronSpec: '* * * * *', image: 'b' }, true)).body.spec.image).toBe('b');
  });

  test('strategic merge patch is refused, as for every custom resource', async () => {
    const res = await api.patch(`${CRONTABS}/nightly`, { spec: { image: 'x' } }, 'application/strategic-merge-patch+json');
    expect(res.status).toBe(415);
    const merge = await api.patch(`${CRONTABS}/nightly`, { spec: { image: 'x' } }, 'application/merge-patch+json');
    expect(merge.status).toBe(200);
    expect(merge.body.spec.image).toBe('x');
  });

  test('the garbage collector deletes what a custom resource owns', async () => {
    const owner = (await api.get(`${CRONTABS}/nightly`)).body;
    const owned = await api.post('/api/v1/namespaces/default/configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'owned', ownerReferences: [{ apiVersion: 'stable.example.com/v1', kind: 'CronTab', name: 'nightly', uid: owner.metadata.uid }] },
    });
    expect(owned.status).toBe(201);
    const deleted = await api.delete(`${CRONTABS}/nightly`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.kind).toBe('CronTab');
    await eventually('the owned configmap is collected', async () =>
      (await api.get('/api/v1/namespaces/default/configmaps/owned')).status === 404 ? true : undefined,
    );
  });

  test('a restarted server serves the resource before it is ready', async () => {
    expect((await api.post(CRONTABS, cronTab('survivor', { cronSpec: '* * * * *' }))).status).toBe(201);
    const again = await startTestServer({ etcdPrefix: server.prefix });
    try {
      const res = await new Api(again.url).get(`${CRONTABS}/survivor`);
      expect(res.status).toBe(200);
    } finally {
      await again.close();
    }
  });

  test('x-kubernetes-validations rules are enforced with CEL, transition rules on updates', async () => {
    const ruled = crd('rules.example.com', 'ranges', 'Range', { scope: 'Cluster' });
    const spec = ruled.spec.versions[0].schema.openAPIV3Schema.properties.spec as Record<string, any>;
    spec.properties = {
      min: { type: 'integer' },
      max: { type: 'integer' },
      owner: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'owner is immutable' }] },
      // Kubernetes' CEL libraries: quantity here.
      limit: { type: 'string', 'x-kubernetes-validations': [{ rule: "quantity(self).isLessThan(quantity('1Gi'))", message: 'limit must be under 1Gi' }] },
    };
    spec.required = [];
    delete (ruled.spec.versions[0] as Record<string, unknown>).selectableFields;
    spec['x-kubernetes-validations'] = [{ rule: 'self.min <= self.max', message: 'min must not exceed max' }];
    expect((await api.post(CRDS, ruled)).status).toBe(201);
    await established('ranges.rules.example.com');
    const base = '/apis/rules.example.com/v1/ranges';
    const range = (min: number, max: number, owner: string) => ({
      apiVersion: 'rules.example.com/v1',
      kind: 'Range',
      metadata: { name: 'r' },
      spec: { min, max, owner },
    });
    const bad = await api.post(base, range(5, 1, 'a'));
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe('Range.rules.example.com "r" is invalid: spec: Invalid value: min must not exceed max');
    const created = await api.post(base, range(1, 5, 'a'));
    expect(created.status).toBe(201);
    const changed = await api.put(`${base}/r`, { ...created.body, spec: { min: 1, max: 5, owner: 'b' } });
    expect(changed.status).toBe(422);
    expect(causes(changed.body)).toEqual(['spec.owner: Invalid value: "b": owner is immutable']);
    const tooBig = await api.post(base, { ...range(1, 5, 'a'), metadata: { name: 'big' }, spec: { min: 1, max: 5, owner: 'a', limit: '2Gi' } });
    expect(causes(tooBig.body)).toEqual(['spec.limit: Invalid value: "2Gi": limit must be under 1Gi']);
    expect((await api.post(base, { ...range(1, 5, 'a'), metadata: { name: 'small' }, spec: { min: 1, max: 5, owner: 'a', limit: '512Mi' } })).status).toBe(201);
    const badRule = crd('badrule.example.com', 'things', 'Thing');
    (badRule.spec.versions[0].schema.openAPIV3Schema as Record<string, unknown>)['x-kubernetes-validations'] = [{ rule: 'self.spec.x >' }];
    const refused = await api.post(CRDS, badRule);
    expect(refused.status).toBe(422);
    // The rule is kube's internal ValidationRule (no json tags) as encoding/json writes it.
    expect(causes(refused.body)[0]).toMatch(
      /^spec\.versions\[0\]\.schema\.openAPIV3Schema\.x-kubernetes-validations\[0\]\.rule: Invalid value: \{"Rule":"self\.spec\.x \\u003e","Message":"",.*"OptionalOldSelf":null\}: compilation failed: /,
    );
  });

  test('versions share the objects: stored in the storage version, shown in the version asked for, watches too', async () => {
    const twoVersions = crd('versions.example.com', 'gizmos', 'Gizmo', { scope: 'Cluster' });
    const v1 = twoVersions.spec.versions[0];
    twoVersions.spec.versions = [v1, { ...v1, name: 'v2', storage: false }];
    expect((await api.post(CRDS, twoVersions)).status).toBe(201);
    await established('gizmos.versions.example.com');
    const gizmo = (version: string, name: string) => ({
      apiVersion: `versions.example.com/${version}`,
      kind: 'Gizmo',
      metadata: { name },
      spec: { cronSpec: '* * * * *' },
    });
    const created = await api.post('/apis/versions.example.com/v2/gizmos', gizmo('v2', 'g2'));
    expect(created.status).toBe(201);
    expect(created.body.apiVersion).toBe('versions.example.com/v2');
    const etcd = new RawEtcd();
    try {
      const stored = JSON.parse((await etcd.get(`${server.prefix}/versions.example.com/gizmos/g2`))!.toString());
      expect(stored.apiVersion).toBe('versions.example.com/v1');
    } finally {
      etcd.close();
    }
    expect((await api.get('/apis/versions.example.com/v1/gizmos/g2')).body.apiVersion).toBe('versions.example.com/v1');
    const watch = await fetch(
      `${server.url}/apis/versions.example.com/v2/gizmos?watch=true&resourceVersion=${created.body.metadata.resourceVersion}&timeoutSeconds=2`,
    );
    expect((await api.post('/apis/versions.example.com/v1/gizmos', gizmo('v1', 'g1'))).status).toBe(201);
    const event = JSON.parse((await watch.text()).split('\n')[0]);
    expect(event).toMatchObject({ type: 'ADDED', object: { apiVersion: 'versions.example.com/v2', metadata: { name: 'g1' } } });
    // Lists from the watch cache, once it has seen g1 (not older than its event), show every item in the version asked for.
    const seen = event.object.metadata.resourceVersion as string;
    for (const version of ['v1', 'v2']) {
      const list = await api.get(`/apis/versions.example.com/${version}/gizmos?resourceVersion=${seen}&resourceVersionMatch=NotOlderThan`);
      expect(list.status).toBe(200);
      expect(
        list.body.items.map((item: { apiVersion: string; kind: string; metadata: { name: string } }) => [item.metadata.name, item.apiVersion, item.kind]),
      ).toEqual([
        ['g1', `versions.example.com/${version}`, 'Gizmo'],
        ['g2', `versions.example.com/${version}`, 'Gizmo'],
      ]);
    }
  });

  test('a deprecated version warns every request with its own text, else with the newest served version not deprecated', async () => {
    const base = crd('deprecations.example.com', 'widgets', 'Widget', { scope: 'Cluster' });
    const v1 = base.spec.versions[0];
    const version = (name: string, extra: Record<string, unknown>) => ({ ...v1, name, storage: false, ...extra });
    base.spec.versions = [
      version('v1alpha1', { deprecated: true }),
      version('v1beta1', { deprecated: true, deprecationWarning: 'widgets moved: see "v1"' }),
      version('v1beta2', { served: false }),
      v1,
      version('v2', { deprecated: true }),
      version('v3alpha1', { served: true }),
    ];
    expect((await api.post(CRDS, base)).status).toBe(201);
    await established('widgets.deprecations.example.com');
    const warned = async (path: string) => (await api.get(`/apis/deprecations.example.com/${path}`)).headers.get('warning');
    expect(await warned('v1alpha1/widgets')).toBe('299 - "deprecations.example.com/v1alpha1 Widget is deprecated; use deprecations.example.com/v1 Widget"');
    // On a failed request too.
    expect(await warned('v1beta1/widgets/none')).toBe('299 - "widgets moved: see \\"v1\\""');
    // Nothing newer than v2 but an alpha version, which ranks lower.
    expect(await warned('v2/widgets')).toBe('299 - "deprecations.example.com/v2 Widget is deprecated"');
    expect(await warned('v1/widgets')).toBeNull();
  });

  test("while its definition terminates, held back by an object's finalizer, a resource refuses creates with 403 but serves the rest", async () => {
    const held = crd('terminating.example.com', 'anchors', 'Anchor', { scope: 'Cluster' });
    expect((await api.post(CRDS, held)).status).toBe(201);
    await established('anchors.terminating.example.com');
    const anchors = '/apis/terminating.example.com/v1/anchors';
    const anchor = (name: string, extra: Record<string, unknown> = {}) => ({
      apiVersion: 'terminating.example.com/v1',
      kind: 'Anchor',
      metadata: { name, ...extra },
      spec: { cronSpec: '* * * * *' },
    });
    expect((await api.post(anchors, anchor('kept', { finalizers: ['example.com/hold'] }))).status).toBe(201);
    expect((await api.delete(`${CRDS}/anchors.terminating.example.com`)).status).toBe(200);
    await eventually('anchors.terminating.example.com terminating', async () => {
      const res = await api.post(anchors, anchor('late'));
      return res.status === 403 ? res.body : undefined;
    }).then((body) =>
      expect(body).toMatchObject({
        reason: 'Forbidden',
        message: 'anchors.terminating.example.com "late" is forbidden: create not allowed while custom resource definition is terminating',
        details: { name: 'late', group: 'terminating.example.com', kind: 'anchors' },
        code: 403,
      }),
    );
    // Discovery lists what is left, in kube's order for CRDs.
    const resource = (await api.get('/apis/terminating.example.com/v1')).body.resources.find((r: { name: string }) => r.name === 'anchors');
    expect(resource.verbs).toEqual(['delete', 'deletecollection', 'get', 'list', 'watch']);
    const aggregated = await api.get('/apis', { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
    const group = aggregated.body.items.find((g: { metadata: { name: string } }) => g.metadata.name === 'terminating.example.com');
    expect(group.versions[0].resources[0].verbs).toEqual(['delete', 'deletecollection', 'get', 'list', 'watch']);
    // Server-side apply of a new object is a create too; reads and writes of what exists go on.
    const applied = await api.request('PATCH', `${anchors}/applied?fieldManager=test`, {
      raw: JSON.stringify(anchor('applied')),
      contentType: 'application/apply-patch+yaml',
    });
    expect([applied.status, applied.body.message]).toEqual([
      403,
      'anchors.terminating.example.com "applied" is forbidden: create not allowed while custom resource definition is terminating',
    ]);
    expect((await api.get(anchors)).body.items.map((a: { metadata: { name: string } }) => a.metadata.name)).toEqual(['kept']);
    const released = await api.request('PATCH', `${anchors}/kept`, {
      raw: JSON.stringify({ metadata: { finalizers: null } }),
      contentType: 'application/merge-patch+json',
    });
    expect(released.status).toBe(200);
    await eventually('anchors.terminating.example.com gone', async () =>
      (await api.get(`${CRDS}/anchors.terminating.example.com`)).status === 404 ? true : undefined,
    );
  });

  test('deleting the definition deletes its resources, then the definition, and the resource is no longer served', async () => {
    const res = await api.delete(`${CRDS}/crontabs.stable.example.com`);
    expect(res.status).toBe(200);
    expect(res.body.metadata.finalizers).toEqual(['customresourcecleanup.apiextensions.k8s.io']);
    await eventually('the CRD is gone', async () => ((await api.get(`${CRDS}/crontabs.stable.example.com`)).status === 404 ? true : undefined));
    // The served set follows the definitions' informer, which may learn of the deletion after a read from etcd does (as kube's crdHandler).
    await eventually('the resource unserved', async () => ((await api.get(CRONTABS)).status === 404 ? true : undefined));
    expect((await api.get('/apis/stable.example.com/v1')).status).toBe(404);
  });
});
