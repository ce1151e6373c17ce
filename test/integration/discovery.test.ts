import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Root } from 'protobufjs';
import { createEstablished, simpleCrd } from '../harness/crds';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

/** kube-apiserver 1.34's group order in /apis, both forms. */
const GROUP_ORDER = [
  'apiregistration.k8s.io',
  'apps',
  'events.k8s.io',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'networking.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'storage.k8s.io',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'scheduling.k8s.io',
  'coordination.k8s.io',
  'node.k8s.io',
  'discovery.k8s.io',
  'flowcontrol.apiserver.k8s.io',
  'resource.k8s.io',
];

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;

beforeAll(async () => {
  server = await startTestServer();
  api = new Api(server.url);
});

afterAll(async () => {
  await server.close();
});

const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

test('/version reports Kubernetes 1.36', async () => {
  const res = await api.get('/version');
  expect(res.body).toMatchObject({ major: '1', minor: '36', gitVersion: 'v1.36.3+kapi' });
});

test('legacy discovery: /api, /api/v1, /apis, /apis/apps, /apis/apps/v1', async () => {
  expect((await api.get('/api')).body).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
  const v1 = await api.get('/api/v1');
  expect(v1.body.kind).toBe('APIResourceList');
  const names: string[] = v1.body.resources.map((r: { name: string }) => r.name);
  expect(names).toEqual([...names].sort());
  expect(names.slice(0, 4)).toEqual(['bindings', 'componentstatuses', 'configmaps', 'endpoints']);
  const pods = v1.body.resources.find((r: { name: string }) => r.name === 'pods');
  expect(pods).toEqual({
    name: 'pods',
    singularName: 'pod',
    namespaced: true,
    kind: 'Pod',
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['po'],
    categories: ['all'],
    storageVersionHash: 'xPOwRZ+Yhw8=',
  });
  expect(v1.body.resources.find((r: { name: string }) => r.name === 'pods/status')).toMatchObject({ kind: 'Pod', verbs: ['get', 'patch', 'update'] });
  expect(v1.body.resources.find((r: { name: string }) => r.name === 'namespaces/finalize')).toMatchObject({ verbs: ['update'] });
  const apis = await api.get('/apis');
  expect(apis.body.groups.map((g: { name: string }) => g.name)).toEqual(GROUP_ORDER);
  expect((await api.get('/apis/apps')).body).toMatchObject({ kind: 'APIGroup', name: 'apps', preferredVersion: { groupVersion: 'apps/v1', version: 'v1' } });
  const apps = await api.get('/apis/apps/v1');
  expect(apps.body.resources.find((r: { name: string }) => r.name === 'deployments')).toMatchObject({
    kind: 'Deployment',
    shortNames: ['deploy'],
    storageVersionHash: '8aSe+NMegvE=',
  });
  expect((await api.get('/apis/nope')).status).toBe(404);
});

test('aggregated discovery when asked for it', async () => {
  const core = await api.get('/api', { accept: `${AGGREGATED},application/json` });
  expect(core.headers.get('content-type')).toBe(AGGREGATED);
  expect(core.body.kind).toBe('APIGroupDiscoveryList');
  const resources = core.body.items[0].versions[0].resources;
  expect(resources.map((r: { resource: string }) => r.resource)).toEqual([
    'bindings',
    'componentstatuses',
    'configmaps',
    'endpoints',
    'events',
    'limitranges',
    'namespaces',
    'nodes',
    'persistentvolumeclaims',
    'persistentvolumes',
    'pods',
    'podtemplates',
    'replicationcontrollers',
    'resourcequotas',
    'secrets',
    'serviceaccounts',
    'services',
  ]);
  expect(resources.find((r: { resource: string }) => r.resource === 'namespaces')).toMatchObject({
    scope: 'Cluster',
    responseKind: { group: '', version: 'v1', kind: 'Namespace' },
    // In name order, as kube-apiserver registers a resource's paths sorted.
    subresources: [
      { subresource: 'finalize', verbs: ['update'] },
      { subresource: 'status', verbs: ['get', 'patch', 'update'] },
    ],
  });
  const groups = await api.get('/apis', { accept: AGGREGATED });
  expect(groups.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(GROUP_ORDER);
});

test('OpenAPI v3: index and per group-version documents with GVK and fieldValidation on PATCH', async () => {
  const index = await api.get('/openapi/v3');
  expect(Object.keys(index.body.paths)).toEqual(expect.arrayContaining(['api/v1', 'apis/apps/v1', 'apis/coordination.k8s.io/v1']));
  const url = index.body.paths['apis/apps/v1'].serverRelativeURL;
  expect(url).toMatch(/^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]+$/);
  const doc = await api.get(url);
  const item = doc.body.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}'];
  expect(item.patch['x-kubernetes-group-version-kind']).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment' });
  expect(item.patch.parameters.map((p: { name: string }) => p.name)).toContain('fieldValidation');
  const schema = doc.body.components.schemas['io.k8s.api.apps.v1.Deployment'];
  expect(schema['x-kubernetes-group-version-kind']).toEqual([{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
  const podSpec = doc.body.components.schemas['io.k8s.api.core.v1.PodSpec'];
  expect(podSpec.required).toEqual(['containers']);
  expect(podSpec.properties.containers).toMatchObject({ 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-list-type': 'map' });
});

test('OpenAPI v3 api/v1 describes the connect operations as kube does: exec, attach, portforward and proxy of pods, services and nodes', async () => {
  const doc = (await api.get('/openapi/v3/api/v1')).body;
  const exec = doc.paths['/api/v1/namespaces/{namespace}/pods/{name}/exec'];
  expect(Object.keys(exec).sort()).toEqual(['get', 'parameters', 'post']);
  expect(exec.get).toEqual({
    tags: ['core_v1'],
    description: 'connect GET requests to exec of Pod',
    operationId: 'connectCoreV1GetNamespacedPodExec',
    responses: { '200': { description: 'OK', content: { '*/*': { schema: { type: 'string' } } } }, '401': { description: 'Unauthorized' } },
    'x-kubernetes-action': 'connect',
    'x-kubernetes-group-version-kind': { group: '', version: 'v1', kind: 'PodExecOptions' },
  });
  expect(exec.post.operationId).toBe('connectCoreV1PostNamespacedPodExec');
  expect(exec.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual([
    'query:command',
    'query:container',
    'path:name',
    'path:namespace',
    'query:stderr',
    'query:stdin',
    'query:stdout',
    'query:tty',
  ]);
  expect(exec.parameters.find((p: { name: string }) => p.name === 'tty')).toEqual({
    name: 'tty',
    in: 'query',
    description: 'TTY if true indicates that a tty will be allocated for the exec call. Defaults to false.',
    schema: { type: 'boolean', uniqueItems: true },
  });
  expect(exec.parameters.find((p: { name: string }) => p.name === 'name').description).toBe('name of the PodExecOptions');
  expect(doc.paths['/api/v1/namespaces/{namespace}/pods/{name}/attach'].get['x-kubernetes-group-version-kind'].kind).toBe('PodAttachOptions');
  const portforward = doc.paths['/api/v1/namespaces/{namespace}/pods/{name}/portforward'];
  expect([portforward.get.operationId, portforward.parameters.find((p: { name: string }) => p.name === 'ports').schema.type]).toEqual([
    'connectCoreV1GetNamespacedPodPortforward',
    'integer',
  ]);
  const podProxy = doc.paths['/api/v1/namespaces/{namespace}/pods/{name}/proxy/{path}'];
  expect(
    Object.keys(podProxy)
      .filter((k) => k !== 'parameters')
      .sort(),
  ).toEqual(['delete', 'get', 'head', 'options', 'patch', 'post', 'put']);
  expect(podProxy.options.operationId).toBe('connectCoreV1OptionsNamespacedPodProxyWithPath');
  expect(podProxy.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual(['path:name', 'path:namespace', 'path:path', 'query:path']);
  expect(doc.paths['/api/v1/namespaces/{namespace}/services/{name}/proxy'].put.operationId).toBe('connectCoreV1PutNamespacedServiceProxy');
  const nodeProxy = doc.paths['/api/v1/nodes/{name}/proxy/{path}'];
  expect([nodeProxy.get.operationId, nodeProxy.get['x-kubernetes-group-version-kind'].kind]).toEqual(['connectCoreV1GetNodeProxyWithPath', 'NodeProxyOptions']);
  // pods/log is a read of the Pod, not a connect operation.
  expect(doc.paths['/api/v1/namespaces/{namespace}/pods/{name}/log']).toBeUndefined();
});

test('OpenAPI v2 describes them too: */* in and out, a string answer', async () => {
  const res = await api.get('/openapi/v2', { accept: 'application/json' });
  const exec = res.body.paths['/api/v1/namespaces/{namespace}/pods/{name}/exec'];
  expect(exec.post).toMatchObject({
    operationId: 'connectCoreV1PostNamespacedPodExec',
    consumes: ['*/*'],
    produces: ['*/*'],
    responses: { '200': { description: 'OK', schema: { type: 'string' } }, '401': { description: 'Unauthorized' } },
    'x-kubernetes-action': 'connect',
  });
  expect(exec.parameters.find((p: { name: string }) => p.name === 'command')).toEqual({
    name: 'command',
    in: 'query',
    description: 'Command is the remote command to execute. argv array. Not executed within a shell.',
    type: 'string',
    uniqueItems: true,
  });
  expect(res.body.paths['/api/v1/namespaces/{namespace}/services/{name}/proxy/{path}'].get.operationId).toBe('connectCoreV1GetNamespacedServiceProxyWithPath');
});

test('OpenAPI v2 is served as JSON; kinds carry apiVersion and kind', async () => {
  const res = await api.get('/openapi/v2', { accept: 'application/json' });
  expect(res.status).toBe(200);
  expect(res.body.swagger).toBe('2.0');
  expect(Object.keys(res.body.definitions['io.k8s.api.core.v1.Pod'].properties).slice(0, 3)).toEqual(['apiVersion', 'kind', 'metadata']);
});

test('OpenAPI v2 is served in Protobuf (gnostic openapi.v2.Document), as client-go asks for it first', async () => {
  for (const accept of ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf']) {
    const res = await fetch(`${server.url}/openapi/v2`, { headers: { Accept: accept } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    const document = new Root()
      .loadSync(path.resolve(__dirname, '../../proto/openapiv2/OpenAPIv2.proto'), { keepCase: true })
      .lookupType('openapi.v2.Document');
    const decoded = document.toObject(document.decode(Buffer.from(await res.arrayBuffer()))) as {
      swagger: string;
      definitions: {
        additional_properties: {
          name: string;
          value: { properties: { additional_properties: { name: string }[] }; vendor_extension: { name: string; value: { yaml: string } }[] };
        }[];
      };
    };
    expect(decoded.swagger).toBe('2.0');
    const pod = decoded.definitions.additional_properties.find((d) => d.name === 'io.k8s.api.core.v1.Pod')!.value;
    expect(pod.properties.additional_properties.map((p) => p.name)).toEqual(expect.arrayContaining(['apiVersion', 'kind', 'metadata', 'spec', 'status']));
    expect(pod.vendor_extension).toEqual([{ name: 'x-kubernetes-group-version-kind', value: { yaml: "- group: ''\n  kind: Pod\n  version: v1\n" } }]);
  }
});

test('health endpoints', async () => {
  for (const path of ['/healthz', '/livez', '/readyz']) {
    const res = await api.get(path);
    expect(res.status).toBe(200);
    expect(res.text).toBe('ok');
  }
  const verbose = await api.get('/readyz?verbose');
  expect(verbose.text).toBe(
    [
      '[+]ping ok',
      '[+]etcd ok',
      '[+]watch-cache ok',
      '[+]poststarthook/start-apiextensions-controllers ok',
      '[+]poststarthook/start-kube-apiserver-identity-lease-controller ok',
      '[+]poststarthook/start-kubernetes-service-cidr-controller ok',
      '[+]poststarthook/bootstrap-controller ok',
      '[+]poststarthook/start-service-ip-repair-controllers ok',
      '[+]namespace-controller ok',
      '[+]garbage-collector-controller ok',
      '[+]apiextensions-establishing-controller ok',
      '[+]clusterrole-aggregation-controller ok',
      '[+]serviceaccount-controller ok',
      '[+]validatingadmissionpolicy-status-controller ok',
      '[+]root-ca-certificate-publisher-controller ok',
      '[+]persistentvolumeclaim-protection-controller ok',
      '[+]persistentvolume-protection-controller ok',
      '[+]resourcequota-controller ok',
      '[+]deployment-controller ok',
      '[+]replicaset-controller ok',
      '[+]replicationcontroller-controller ok',
      '[+]statefulset-controller ok',
      '[+]daemonset-controller ok',
      '[+]job-controller ok',
      '[+]cronjob-controller ok',
      '[+]horizontal-pod-autoscaler-controller ok',
      '[+]endpoints-controller ok',
      '[+]endpointslice-controller ok',
      '[+]endpointslice-mirroring-controller ok',
      '[+]persistentvolume-binder-controller ok',
      '[+]disruption-controller ok',
      '[+]poststarthook/priority-and-fairness-config-producer ok',
      '[+]pod-garbage-collector-controller ok',
      '[+]ttl-after-finished-controller ok',
      '[+]node-lifecycle-controller ok',
      '[+]taint-eviction-controller ok',
      '[+]csrsigning-controller ok',
      '[+]poststarthook/apiservice-registration-controller ok',
      '[+]autoregister-completion ok',
      '[+]poststarthook/apiservice-status-available-controller ok',
      '[+]leaderElection ok',
      '[+]shutdown ok',
      'readyz check passed\n',
    ].join('\n'),
  );
  expect((await api.get('/readyz/etcd')).status).toBe(200);
});

test('metrics with kube-apiserver names and labels', async () => {
  await api.get('/api/v1/namespaces/default/configmaps');
  await api.get('/api/v1/namespaces/default/configmaps/missing');
  const res = await api.get('/metrics');
  expect(res.headers.get('content-type')).toContain('text/plain');
  expect(res.text).toMatch(
    /apiserver_request_total\{verb="LIST",dry_run="",group="",version="v1",resource="configmaps",subresource="",scope="namespace",component="apiserver",code="200"\} \d+/,
  );
  expect(res.text).toMatch(/apiserver_request_total\{verb="GET",[^}]*resource="configmaps",[^}]*scope="resource",[^}]*code="404"\} \d+/);
  expect(res.text).toMatch(/apiserver_request_duration_seconds_bucket\{le="0.005",verb="LIST"/);
  expect(res.text).toMatch(/etcd_request_duration_seconds_bucket\{le="[^"]+",operation="list",type="configmaps"\}/);
  expect(res.text).toMatch(/apiserver_storage_objects\{resource="namespaces"\} 4/);
  // The process's own metrics, once each.
  expect(res.text.match(/^# TYPE process_cpu_seconds_total counter$/gm)).toHaveLength(1);
  expect(res.text.match(/^# TYPE nodejs_eventloop_lag_seconds gauge$/gm)).toHaveLength(1);
});

test('Table output for kubectl', async () => {
  await api.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'tbl' }, data: { a: '1', b: '2' } });
  const res = await api.get('/api/v1/namespaces/default/configmaps', { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' });
  expect(res.body.kind).toBe('Table');
  expect(res.body.apiVersion).toBe('meta.k8s.io/v1');
  expect(res.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Data', 'Age']);
  const row = res.body.rows.find((r: { cells: unknown[] }) => r.cells[0] === 'tbl');
  expect(row.cells[1]).toBe(2);
  expect(row.object).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'tbl' } });
  const cluster = await api.get('/api/v1/namespaces/default/configmaps/tbl', { accept: 'application/json;as=Table;v=v1;g=meta.cluster' });
  expect(cluster.body).toMatchObject({ kind: 'Table', apiVersion: 'meta.cluster/v1' });
  const onlyTable = await api.get('/api/v1/namespaces/default/configmaps', { accept: 'application/json;as=Table;v=v9;g=meta.k8s.io' });
  expect(onlyTable.status).toBe(406);
});

type OpenApiSchema = {
  $ref?: string;
  allOf?: OpenApiSchema[];
  type?: string;
  properties?: Record<string, OpenApiSchema>;
  items?: OpenApiSchema;
  additionalProperties?: OpenApiSchema | boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string }[];
};

/**
 * Every field of `value` must be described by `schema` with a type that fits: the release's object
 * with every field set (k8s.io/api's testdata/HEAD) walked against kapi's served OpenAPI v3.
 */
function undescribed(schemas: Record<string, OpenApiSchema>, schema: OpenApiSchema, value: unknown, at: string, out: string[]): void {
  while (schema.$ref || schema.allOf?.length === 1) schema = schema.$ref ? schemas[schema.$ref.replace('#/components/schemas/', '')] : schema.allOf![0];
  if (value === null || schema['x-kubernetes-preserve-unknown-fields']) return;
  const is = Array.isArray(value) ? 'array' : typeof value;
  const fits =
    !schema.type ||
    (schema['x-kubernetes-int-or-string'] && (is === 'string' || is === 'number')) ||
    schema.type === is ||
    (is === 'number' && (schema.type === 'integer' || schema.type === 'number'));
  if (!fits) {
    out.push(`${at}: a JSON ${is}, described as ${schema.type}`);
    return;
  }
  if (Array.isArray(value)) {
    if (schema.items) value.forEach((v, i) => undescribed(schemas, schema.items!, v, `${at}[${i}]`, out));
  } else if (is === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const sub = schema.properties?.[k] ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
      if (sub) undescribed(schemas, sub, v, `${at}.${k}`, out);
      else if (schema.properties) out.push(`${at}.${k}: not in the schema`);
    }
  }
}

test("OpenAPI v3 describes every field of the release's own objects, for every served kind the release has data for", async () => {
  const testdata = JSON.parse(gunzipSync(readFileSync(path.resolve(__dirname, '../fixtures/release/api-testdata.json.gz'))).toString('utf8')) as {
    objects: Record<string, { json: { apiVersion?: string; kind?: string } }>;
  };
  const served = new Set(Object.keys((await api.get('/openapi/v3')).body.paths as Record<string, unknown>));
  const documents = new Map<string, Record<string, OpenApiSchema>>();
  const problems: string[] = [];
  let checked = 0;
  for (const [name, { json }] of Object.entries(testdata.objects)) {
    if (!json.apiVersion || !json.kind) continue;
    const docPath = json.apiVersion.includes('/') ? `apis/${json.apiVersion}` : `api/${json.apiVersion}`;
    if (!served.has(docPath)) continue;
    if (!documents.has(docPath)) documents.set(docPath, (await api.get(`/openapi/v3/${docPath}`)).body.components.schemas);
    const schemas = documents.get(docPath)!;
    const [group, version] = json.apiVersion.includes('/') ? json.apiVersion.split('/') : ['', json.apiVersion];
    const kind = Object.values(schemas).find((s) =>
      s['x-kubernetes-group-version-kind']?.some((g) => g.group === group && g.version === version && g.kind === json.kind),
    );
    // Kinds a group-version registers but serves no resource of (options, reviews' internal forms) have no schema there.
    if (!kind) continue;
    undescribed(schemas, kind, json, name, problems);
    checked++;
  }
  expect(problems).toEqual([]);
  expect(checked).toBeGreaterThan(60);
});

test("CRD groups follow the built-in ones as kube breaks their priority tie, whatever order they were created in; a group's versions newest first", async () => {
  const group = (name: string, versions: string[]) => {
    const crd = simpleCrd(name, 'widgets', 'Widget') as { metadata: { name: string }; spec: { versions: Record<string, unknown>[] } };
    const [only] = crd.spec.versions;
    crd.spec.versions = versions.map((version, i) => ({ ...only, name: version, storage: i === 0 }));
    return crd;
  };
  const created = [group('alpha.order.example.com', ['v2']), group('zeta.order.example.com', ['v1']), group('mid.order.example.com', ['v1alpha1', 'v1beta1'])];
  for (const crd of created) await createEstablished(api, crd);
  const ours = (names: string[]) => names.filter((n) => n.endsWith('.order.example.com'));
  // Legacy /apis: by APIService name (v1.zeta…, v1beta1.mid…, v2.alpha…).
  const legacy = (await api.get('/apis')).body.groups as { name: string; versions: { version: string }[]; preferredVersion: { version: string } }[];
  expect(ours(legacy.map((g) => g.name))).toEqual(['zeta.order.example.com', 'mid.order.example.com', 'alpha.order.example.com']);
  expect(legacy.map((g) => g.name).slice(0, GROUP_ORDER.length)).toEqual(GROUP_ORDER);
  const mid = legacy.find((g) => g.name === 'mid.order.example.com')!;
  expect([mid.versions.map((v) => v.version), mid.preferredVersion.version]).toEqual([['v1beta1', 'v1alpha1'], 'v1beta1']);
  // Aggregated: by group name.
  const aggregated = (await api.get('/apis', { accept: AGGREGATED })).body.items as { metadata: { name: string }; versions: { version: string }[] }[];
  expect(ours(aggregated.map((g) => g.metadata.name))).toEqual(['alpha.order.example.com', 'mid.order.example.com', 'zeta.order.example.com']);
  expect(aggregated.find((g) => g.metadata.name === 'mid.order.example.com')!.versions.map((v) => v.version)).toEqual(['v1beta1', 'v1alpha1']);
  // A custom resource's verbs in the order kube's CRD discovery lists them, not sorted as built-in ones.
  const widgets = (await api.get('/apis/mid.order.example.com/v1beta1')).body.resources[0];
  expect(widgets.verbs).toEqual(['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch']);
  for (const crd of created) await api.delete(`/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`);
});
