import { decodeProtobuf } from '../../src/codec/protobuf';
import { encodeProtobuf } from '../../src/codec/protobuf-write';
import { causes } from '../harness/causes';
import { RawEtcd } from '../harness/etcd-keys';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

/** autoscaling/v2 HPAs, scheduling.k8s.io/v1 PriorityClasses and discovery.k8s.io/v1 EndpointSlices as kube-apiserver serves them. */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
let etcd: RawEtcd;
const HPAS = '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers';
const PCS = '/apis/scheduling.k8s.io/v1/priorityclasses';
const SLICES = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices';
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

const hpa = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, maxReplicas: 5, ...spec },
});
const priorityClass = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'scheduling.k8s.io/v1',
  kind: 'PriorityClass',
  metadata: { name },
  value: 1000,
  ...extra,
});
const slice = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { name, labels: { 'kubernetes.io/service-name': 'web' } },
  addressType: 'IPv4',
  endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }],
  ports: [{ port: 80 }],
  ...extra,
});

test('discovery: autoscaling serves v2 only, scheduling and discovery groups in kube-apiserver order', async () => {
  const groups = (await api.get('/apis')).body.groups as { name: string; versions: { version: string }[]; preferredVersion: { version: string } }[];
  const names = groups.map((g) => g.name);
  expect(names.indexOf('autoscaling')).toBe(names.indexOf('authorization.k8s.io') + 1);
  expect(names.indexOf('batch')).toBe(names.indexOf('autoscaling') + 1);
  expect(names.indexOf('scheduling.k8s.io')).toBe(names.indexOf('apiextensions.k8s.io') + 1);
  expect(names.indexOf('node.k8s.io')).toBe(names.indexOf('coordination.k8s.io') + 1);
  expect(names.indexOf('discovery.k8s.io')).toBe(names.indexOf('node.k8s.io') + 1);
  expect(groups.find((g) => g.name === 'autoscaling')).toMatchObject({ versions: [{ version: 'v2' }, { version: 'v1' }], preferredVersion: { version: 'v2' } });
  const autoscaling = (await api.get('/apis/autoscaling/v2')).body.resources;
  expect(autoscaling.find((r: { name: string }) => r.name === 'horizontalpodautoscalers')).toMatchObject({
    kind: 'HorizontalPodAutoscaler',
    namespaced: true,
    shortNames: ['hpa'],
    categories: ['all'],
  });
  expect(autoscaling.find((r: { name: string }) => r.name === 'horizontalpodautoscalers/status')).toMatchObject({ verbs: ['get', 'patch', 'update'] });
  expect((await api.get('/apis/scheduling.k8s.io/v1')).body.resources[0]).toMatchObject({ name: 'priorityclasses', namespaced: false, shortNames: ['pc'] });
  expect((await api.get('/apis/discovery.k8s.io/v1')).body.resources[0]).toMatchObject({ name: 'endpointslices', namespaced: true, kind: 'EndpointSlice' });
  const v1 = (await api.get('/apis/autoscaling/v1')).body.resources.map((r: { name: string }) => r.name);
  expect(v1).toEqual(['horizontalpodautoscalers', 'horizontalpodautoscalers/status']);
});

test('an HPA gets one replica at least and 80% CPU; a behavior given is filled in; create cannot set status', async () => {
  const res = await api.post(HPAS, { ...hpa('web'), status: { currentReplicas: 9, desiredReplicas: 9 } });
  expect(res.status).toBe(201);
  expect(res.body.spec).toEqual({
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
    minReplicas: 1,
    maxReplicas: 5,
    metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }],
  });
  expect(res.body.status).toEqual({ currentMetrics: null, desiredReplicas: 0 });
  expect(await etcd.keys(`${server.prefix}/horizontalpodautoscalers/default/`)).toEqual([`${server.prefix}/horizontalpodautoscalers/default/web`]);
  const behaved = await api.post(HPAS, hpa('behaved', { behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } }));
  expect(behaved.body.spec.behavior).toEqual({
    scaleUp: {
      stabilizationWindowSeconds: 0,
      selectPolicy: 'Max',
      policies: [
        { type: 'Pods', value: 4, periodSeconds: 15 },
        { type: 'Percent', value: 100, periodSeconds: 15 },
      ],
    },
    scaleDown: { stabilizationWindowSeconds: 60, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] },
  });
});

test('HPA validation: replica bounds, the target reference and metric sources, with kube-apiserver messages', async () => {
  const res = await api.post(HPAS, {
    ...hpa('bad', {
      minReplicas: 3,
      maxReplicas: 2,
      metrics: [{ type: 'Pods', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
    }),
    spec: {
      minReplicas: 3,
      maxReplicas: 2,
      scaleTargetRef: { name: 'web' },
      metrics: [{ type: 'Pods', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }],
    },
  });
  expect(res.status).toBe(422);
  expect(res.body.message).toMatch(/^HorizontalPodAutoscaler.autoscaling "bad" is invalid: /);
  expect(causes(res.body)).toEqual([
    'FieldValueInvalid spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`',
    'FieldValueRequired spec.scaleTargetRef.kind: Required value',
    'FieldValueRequired spec.metrics[0].pods: Required value: must populate information for the given metric source',
  ]);
});

test('the HPA status subresource is the only way to write status, and cannot change the spec', async () => {
  const current = (await api.get(`${HPAS}/web`)).body;
  const status = {
    currentReplicas: 2,
    desiredReplicas: 3,
    currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 42 } } }],
  };
  const res = await api.put(`${HPAS}/web/status`, { ...current, spec: { ...current.spec, maxReplicas: 50 }, status });
  expect(res.status).toBe(200);
  expect(res.body.status).toEqual(status);
  expect(res.body.spec.maxReplicas).toBe(5);
  const main = await api.put(`${HPAS}/web`, { ...res.body, status: { desiredReplicas: 1 } });
  expect(main.body.status).toEqual(status);
  const table = await api.get(`${HPAS}/web`, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
  expect(table.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Reference', 'Targets', 'MinPods', 'MaxPods', 'Replicas', 'Age']);
  expect(table.body.rows[0].cells.slice(0, 6)).toEqual(['web', 'Deployment/web', 'cpu: 42%/80%', '1', 5, 2]);
});

test('a PriorityClass defaults its preemption policy; value and policy are immutable', async () => {
  const res = await api.post(PCS, priorityClass('high', { description: 'x' }));
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ value: 1000, description: 'x', preemptionPolicy: 'PreemptLowerPriority' });
  expect(res.body.metadata.generation).toBe(1);
  expect(await etcd.keys(`${server.prefix}/priorityclasses/`)).toContain(`${server.prefix}/priorityclasses/high`);
  const changed = await api.put(`${PCS}/high`, { ...res.body, value: 2000, preemptionPolicy: 'Never' });
  expect(changed.status).toBe(422);
  expect(causes(changed.body)).toEqual([
    'FieldValueForbidden value: Forbidden: may not be changed in an update.',
    'FieldValueInvalid preemptionPolicy: Invalid value: "Never": field is immutable',
  ]);
  const described = await api.put(`${PCS}/high`, { ...res.body, description: 'y' });
  expect(described.status).toBe(200);
});

test("PriorityClass validation: system- names are reserved, values above one billion are the system's", async () => {
  const system = await api.post(PCS, priorityClass('system-mine'));
  expect(system.status).toBe(422);
  expect(causes(system.body)).toEqual([
    "FieldValueForbidden metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class",
  ]);
  const huge = await api.post(PCS, priorityClass('huge', { value: 1_000_000_001, preemptionPolicy: 'Sometimes' }));
  expect(causes(huge.body)).toEqual([
    'FieldValueForbidden value: Forbidden: maximum allowed value of a user defined priority is 1000000000',
    'FieldValueNotSupported preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"',
  ]);
  // kube's own system classes pass validation; they exist from the start (bootstrapped as kube-apiserver does).
  const own = await api.post(PCS, priorityClass('system-cluster-critical', { value: 2_000_000_000 }));
  expect(own.status).toBe(409);
  expect(own.body.reason).toBe('AlreadyExists');
});

test('an EndpointSlice defaults its ports to unnamed TCP and drops deprecatedTopology written through v1', async () => {
  const res = await api.post(SLICES, slice('web-1', { endpoints: [{ addresses: ['10.0.0.1'], deprecatedTopology: { 'kubernetes.io/hostname': 'n1' } }] }));
  expect(res.status).toBe(201);
  expect(res.body.ports).toEqual([{ name: '', protocol: 'TCP', port: 80 }]);
  expect(res.body.endpoints).toEqual([{ addresses: ['10.0.0.1'], conditions: {} }]);
  expect(res.body.metadata.generation).toBe(1);
  const moved = await api.put(`${SLICES}/web-1`, { ...res.body, addressType: 'IPv6' });
  expect(causes(moved.body)).toContain('FieldValueInvalid addressType: Invalid value: "IPv6": field is immutable');
});

test('EndpointSlice validation: address type, addresses of that type, ports', async () => {
  const res = await api.post(
    SLICES,
    slice('bad', {
      addressType: 'IPv4',
      endpoints: [{ addresses: [] }, { addresses: ['fd00::1', '169.254.1.1'] }],
      ports: [
        { name: 'http', protocol: 'TCP' },
        { name: 'http', protocol: 'ICMP' },
      ],
    }),
  );
  expect(res.status).toBe(422);
  expect(causes(res.body)).toEqual([
    'FieldValueRequired endpoints[0].addresses: Required value: must contain at least 1 address',
    'FieldValueInvalid endpoints[1].addresses[0]: Invalid value: "fd00::1": must be an IPv4 address',
    'FieldValueInvalid endpoints[1].addresses[1]: Invalid value: "169.254.1.1": may not be in the link-local range (169.254.0.0/16, fe80::/10)',
    'FieldValueDuplicate ports[1].name: Duplicate value: "http"',
    'FieldValueNotSupported ports[1].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
  ]);
  const unknown = await api.post(SLICES, slice('odd', { addressType: 'MAC' }));
  expect(causes(unknown.body)).toEqual(['FieldValueNotSupported addressType: Unsupported value: "MAC": supported values: "FQDN", "IPv4", "IPv6"']);
  const tooMany = await api.post(SLICES, slice('many', { endpoints: Array.from({ length: 1001 }, (_, i) => ({ addresses: [`10.1.${i >> 8}.${i & 255}`] })) }));
  expect(causes(tooMany.body)).toEqual(['FieldValueTooMany endpoints: Too many: 1001: must have at most 1000 items']);
});

test('the three kinds in protobuf, both ways', async () => {
  for (const [path, body] of [
    [HPAS, hpa('proto-hpa')],
    [PCS, priorityClass('proto-pc', { globalDefault: false })],
    [SLICES, slice('proto-slice')],
  ] as const) {
    const created = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': PROTOBUF, Accept: PROTOBUF },
      body: encodeProtobuf(body),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toBe(PROTOBUF);
    const decoded = decodeProtobuf(Buffer.from(await created.arrayBuffer()));
    expect(decoded).toEqual((await api.get(`${path}/${body.metadata.name}`)).body);
  }
});

test('the scale subresource still answers with an autoscaling/v1 Scale, in protobuf too', async () => {
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'scaled' },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'scaled' } },
      template: { metadata: { labels: { app: 'scaled' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    },
  };
  expect((await api.post('/apis/apps/v1/namespaces/default/deployments', deployment)).status).toBe(201);
  const scale = await fetch(`${server.url}/apis/apps/v1/namespaces/default/deployments/scaled/scale`, { headers: { Accept: PROTOBUF } });
  expect(decodeProtobuf(Buffer.from(await scale.arrayBuffer()))).toMatchObject({ apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 2 } });
});

describe('autoscaling/v1 HPAs are the v2 objects, converted', () => {
  const V1 = '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers';
  const V2 = '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers';
  const target = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };

  test('a v1 CPU target is a v2 Resource metric; without one, v2 defaults to 80%', async () => {
    const created = await api.post(V1, {
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'v1-cpu' },
      spec: { scaleTargetRef: target, maxReplicas: 4, targetCPUUtilizationPercentage: 70 },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      apiVersion: 'autoscaling/v1',
      spec: { minReplicas: 1, maxReplicas: 4, targetCPUUtilizationPercentage: 70 },
      status: { currentReplicas: 0, desiredReplicas: 0 },
    });
    const asV2 = (await api.get(`${V2}/v1-cpu`)).body;
    expect(asV2.spec.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }]);
    expect(asV2.spec.targetCPUUtilizationPercentage).toBeUndefined();
    await api.post(V1, {
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'v1-plain' },
      spec: { scaleTargetRef: target, maxReplicas: 2 },
    });
    expect((await api.get(`${V1}/v1-plain`)).body.spec.targetCPUUtilizationPercentage).toBe(80);
  });

  test('other v2 metrics and the behavior survive a v1 read-modify-write in annotations', async () => {
    const memory = { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } };
    const cpu = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } };
    const made = await api.post(V2, {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'mixed' },
      spec: { scaleTargetRef: target, maxReplicas: 3, metrics: [memory, cpu] },
    });
    expect(made.status).toBe(201);
    const v1 = (await api.get(`${V1}/mixed`)).body;
    expect(v1.spec.targetCPUUtilizationPercentage).toBe(50);
    expect(JSON.parse(v1.metadata.annotations['autoscaling.alpha.kubernetes.io/metrics'])).toEqual([memory]);
    const updated = await api.put(`${V1}/mixed`, { ...v1, spec: { ...v1.spec, maxReplicas: 6, targetCPUUtilizationPercentage: 40 } });
    expect(updated.status).toBe(200);
    const after = (await api.get(`${V2}/mixed`)).body;
    expect(after.spec.maxReplicas).toBe(6);
    expect(after.spec.metrics).toEqual([memory, { ...cpu, resource: { ...cpu.resource, target: { type: 'Utilization', averageUtilization: 40 } } }]);
    expect(after.metadata.annotations).toBeUndefined();
  });

  afterAll(async () => {
    for (const name of ['v1-cpu', 'v1-plain', 'mixed']) await api.delete(`${V2}/${name}`);
  });

  test('v1 validation reports the v2 fields it converts to', async () => {
    const res = await api.post(V1, {
      apiVersion: 'autoscaling/v1',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'bad' },
      spec: { scaleTargetRef: target, maxReplicas: 2, targetCPUUtilizationPercentage: 0 },
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toContain('spec.metrics[0].resource.target.averageUtilization');
  });
});
