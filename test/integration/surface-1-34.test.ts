import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually } from '../harness/etcd-keys';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

/**
 * The last kinds of kube-apiserver 1.34's default surface: API Priority and Fairness objects
 * (bootstrapped and kept as kube's configuration producer keeps them) and Dynamic Resource
 * Allocation's resource.k8s.io/v1 kinds, over HTTP.
 */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const FC = '/apis/flowcontrol.apiserver.k8s.io/v1';
const RES = '/apis/resource.k8s.io/v1';
const AUTO_UPDATE = 'apf.kubernetes.io/autoupdate-spec';

beforeAll(async () => {
  server = await startTestServer();
  api = new Api(server.url);
});

afterAll(async () => {
  await server.close();
});

const causes = (body: { details?: { causes?: { field: string; message: string }[] } }) => body.details?.causes ?? [];

describe('flowcontrol.apiserver.k8s.io/v1', () => {
  test("kube's mandatory and suggested objects are there at start, with their exact specs", async () => {
    const levels = await eventually('the bootstrap priority levels', async () => {
      const list = (await api.get(`${FC}/prioritylevelconfigurations`)).body.items as { metadata: { name: string } }[];
      return list.length >= 8 ? list : undefined;
    });
    expect(levels.map((l) => l.metadata.name).sort()).toEqual([
      'catch-all',
      'exempt',
      'global-default',
      'leader-election',
      'node-high',
      'system',
      'workload-high',
      'workload-low',
    ]);
    const exempt = (await api.get(`${FC}/prioritylevelconfigurations/exempt`)).body;
    expect(exempt.metadata.annotations).toEqual({ [AUTO_UPDATE]: 'true' });
    expect(exempt.spec).toEqual({ type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } });
    expect((await api.get(`${FC}/prioritylevelconfigurations/catch-all`)).body.spec).toEqual({
      type: 'Limited',
      limited: { nominalConcurrencyShares: 5, lendablePercent: 0, limitResponse: { type: 'Reject' } },
    });
    expect((await api.get(`${FC}/prioritylevelconfigurations/workload-high`)).body.spec).toEqual({
      type: 'Limited',
      limited: {
        nominalConcurrencyShares: 40,
        lendablePercent: 50,
        limitResponse: { type: 'Queue', queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } },
      },
    });

    const schemas = await eventually('the bootstrap flow schemas', async () => {
      const list = (await api.get(`${FC}/flowschemas`)).body.items as { metadata: { name: string } }[];
      return list.length >= 11 ? list : undefined;
    });
    expect(schemas.map((s) => s.metadata.name).sort()).toEqual([
      'catch-all',
      'exempt',
      'global-default',
      'kube-controller-manager',
      'kube-scheduler',
      'kube-system-service-accounts',
      'probes',
      'service-accounts',
      'system-leader-election',
      'system-node-high',
      'system-nodes',
    ]);
    expect((await api.get(`${FC}/flowschemas/system-leader-election`)).body.spec).toEqual({
      priorityLevelConfiguration: { name: 'leader-election' },
      matchingPrecedence: 100,
      distinguisherMethod: { type: 'ByUser' },
      rules: [
        {
          subjects: [
            { kind: 'User', user: { name: 'system:kube-controller-manager' } },
            { kind: 'User', user: { name: 'system:kube-scheduler' } },
            { kind: 'ServiceAccount', serviceAccount: { name: '*', namespace: 'kube-system' } },
          ],
          resourceRules: [{ verbs: ['get', 'create', 'update'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], namespaces: ['*'] }],
        },
      ],
    });
    const exemptSchema = (await api.get(`${FC}/flowschemas/exempt`)).body;
    expect(exemptSchema.spec).toEqual({
      priorityLevelConfiguration: { name: 'exempt' },
      matchingPrecedence: 1,
      rules: [
        {
          subjects: [{ kind: 'Group', group: { name: 'system:masters' } }],
          resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }],
          nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
        },
      ],
    });
  });

  test("kubectl's columns, the Dangling condition judged, protobuf served", async () => {
    const table = await eventually('catch-all judged', async () => {
      const t = (await api.get(`${FC}/flowschemas`, { accept: TABLE })).body;
      const row = t.rows.find((r: { cells: unknown[] }) => r.cells[0] === 'catch-all');
      return row && row.cells[5] === 'False' ? t : undefined;
    });
    expect(table.columnDefinitions.map((d: { name: string }) => d.name)).toEqual([
      'Name',
      'PriorityLevel',
      'MatchingPrecedence',
      'DistinguisherMethod',
      'Age',
      'MissingPL',
    ]);
    // printFlowSchemaList's order: by matching precedence, then name.
    expect(table.rows.map((r: { cells: unknown[] }) => r.cells[0]).slice(0, 4)).toEqual(['exempt', 'probes', 'system-leader-election', 'system-node-high']);
    const exempt = table.rows.find((r: { cells: unknown[] }) => r.cells[0] === 'exempt');
    expect(exempt.cells.slice(0, 4)).toEqual(['exempt', 'exempt', 1, '<none>']);
    const levels = (await api.get(`${FC}/prioritylevelconfigurations`, { accept: TABLE })).body;
    expect(levels.columnDefinitions.map((d: { name: string }) => d.name)).toEqual([
      'Name',
      'Type',
      'NominalConcurrencyShares',
      'Queues',
      'HandSize',
      'QueueLengthLimit',
      'Age',
    ]);
    const row = (name: string) => levels.rows.find((r: { cells: unknown[] }) => r.cells[0] === name).cells.slice(0, 6);
    expect(row('exempt')).toEqual(['exempt', 'Exempt', '<none>', '<none>', '<none>', '<none>']);
    expect(row('catch-all')).toEqual(['catch-all', 'Limited', 5, '<none>', '<none>', '<none>']);
    expect(row('system')).toEqual(['system', 'Limited', 30, 64, 6, 50]);
    const proto = await api.get(`${FC}/flowschemas/exempt`, { accept: PROTOBUF });
    expect(proto.status).toBe(200);
    expect(proto.headers.get('content-type')).toBe(PROTOBUF);

    // A schema naming a level that does not exist is judged dangling.
    const orphan = {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      kind: 'FlowSchema',
      metadata: { name: 'orphan' },
      spec: {
        priorityLevelConfiguration: { name: 'nowhere' },
        rules: [{ subjects: [{ kind: 'User', user: { name: 'x' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/x'] }] }],
      },
    };
    const created = await api.post(`${FC}/flowschemas`, orphan);
    expect(created.status).toBe(201);
    expect(created.body.spec.matchingPrecedence).toBe(1000);
    const judged = await eventually('orphan judged', async () => {
      const fs = (await api.get(`${FC}/flowschemas/orphan`)).body;
      return fs.status?.conditions?.length ? fs : undefined;
    });
    expect(judged.status.conditions).toEqual([
      expect.objectContaining({
        type: 'Dangling',
        status: 'True',
        reason: 'NotFound',
        message: 'This FlowSchema references the PriorityLevelConfiguration object named "nowhere" but there is no such object',
      }),
    ]);
  });

  test('mandatory objects are put back when deleted or changed; suggested ones only while autoupdate says so', async () => {
    expect((await api.delete(`${FC}/flowschemas/catch-all`)).status).toBe(200);
    await eventually('catch-all back', async () => ((await api.get(`${FC}/flowschemas/catch-all`)).status === 200 ? true : undefined));

    const catchAll = (await api.get(`${FC}/prioritylevelconfigurations/catch-all`)).body;
    catchAll.spec.limited.nominalConcurrencyShares = 50;
    expect((await api.put(`${FC}/prioritylevelconfigurations/catch-all`, catchAll)).status).toBe(200);
    await eventually('catch-all level fixed', async () => {
      const pl = (await api.get(`${FC}/prioritylevelconfigurations/catch-all`)).body;
      return pl.spec.limited.nominalConcurrencyShares === 5 ? true : undefined;
    });

    // The exempt level's own values are its users' to tune.
    const exempt = (await api.get(`${FC}/prioritylevelconfigurations/exempt`)).body;
    exempt.spec.exempt.lendablePercent = 10;
    expect((await api.put(`${FC}/prioritylevelconfigurations/exempt`, exempt)).status).toBe(200);

    const kept = (await api.get(`${FC}/prioritylevelconfigurations/workload-low`)).body;
    kept.metadata.annotations[AUTO_UPDATE] = 'false';
    kept.spec.limited.nominalConcurrencyShares = 7;
    expect((await api.put(`${FC}/prioritylevelconfigurations/workload-low`, kept)).status).toBe(200);
    const reverted = (await api.get(`${FC}/prioritylevelconfigurations/global-default`)).body;
    reverted.spec.limited.nominalConcurrencyShares = 7;
    expect((await api.put(`${FC}/prioritylevelconfigurations/global-default`, reverted)).status).toBe(200);
    await eventually('global-default reverted', async () => {
      const pl = (await api.get(`${FC}/prioritylevelconfigurations/global-default`)).body;
      return pl.spec.limited.nominalConcurrencyShares === 20 ? true : undefined;
    });
    expect((await api.get(`${FC}/prioritylevelconfigurations/workload-low`)).body.spec.limited.nominalConcurrencyShares).toBe(7);
    expect((await api.get(`${FC}/prioritylevelconfigurations/exempt`)).body.spec.exempt.lendablePercent).toBe(10);
  });

  test("kube's defaults and 422s", async () => {
    const pl = await api.post(`${FC}/prioritylevelconfigurations`, {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      kind: 'PriorityLevelConfiguration',
      metadata: { name: 'mine' },
      spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } },
    });
    expect(pl.status).toBe(201);
    expect(pl.body.spec.limited).toEqual({
      nominalConcurrencyShares: 30,
      lendablePercent: 0,
      limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } },
    });

    const badLevel = await api.post(`${FC}/prioritylevelconfigurations`, {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      kind: 'PriorityLevelConfiguration',
      metadata: { name: 'bad' },
      spec: { type: 'Limited', limited: { lendablePercent: 101, limitResponse: { type: 'Queue', queuing: { queues: 4, handSize: 5 } } } },
    });
    expect(badLevel.status).toBe(422);
    expect(causes(badLevel.body)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'spec.limited.lendablePercent', message: 'Invalid value: 101: must be between 0 and 100, inclusive' }),
        expect.objectContaining({ field: 'spec.limited.limitResponse.queuing.handSize', message: 'Invalid value: 5: should not be greater than queues (4)' }),
      ]),
    );
    const badSchema = await api.post(`${FC}/flowschemas`, {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      kind: 'FlowSchema',
      metadata: { name: 'bad' },
      spec: { priorityLevelConfiguration: { name: 'mine' }, matchingPrecedence: 1, rules: [{ subjects: [] }] },
    });
    expect(badSchema.status).toBe(422);
    expect(causes(badSchema.body)).toEqual([
      expect.objectContaining({ field: 'spec.matchingPrecedence', message: "Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1" }),
      expect.objectContaining({ field: 'spec.rules[0].subjects', message: 'Required value: subjects must contain at least one value' }),
      expect.objectContaining({ field: 'spec.rules[0]', message: 'Required value: at least one of resourceRules and nonResourceRules has to be non-empty' }),
    ]);
  });
});

describe('resource.k8s.io/v1', () => {
  const claimSpec = { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } }] } };

  test("the edit and view roles cover claims and claim templates, as kube's bootstrap policy with DynamicResourceAllocation", async () => {
    const rulesOf = async (name: string) => (await api.get(`/apis/rbac.authorization.k8s.io/v1/clusterroles/${name}`)).body.rules;
    expect(await rulesOf('system:aggregate-to-edit')).toContainEqual({
      apiGroups: ['resource.k8s.io'],
      resources: ['resourceclaims', 'resourceclaimtemplates'],
      verbs: ['create', 'delete', 'deletecollection', 'patch', 'update'],
    });
    expect(await rulesOf('system:aggregate-to-view')).toContainEqual({
      apiGroups: ['resource.k8s.io'],
      resources: ['resourceclaims', 'resourceclaims/status', 'resourceclaimtemplates'],
      verbs: ['get', 'list', 'watch'],
    });
  });

  test('served as v1 only, as kube-apiserver 1.34 serves it by default', async () => {
    const group = (await api.get('/apis/resource.k8s.io')).body;
    expect(group.versions.map((v: { version: string }) => v.version)).toEqual(['v1']);
    const names = (await api.get(RES)).body.resources.map((r: { name: string }) => r.name);
    expect(names.sort()).toEqual(['deviceclasses', 'resourceclaims', 'resourceclaims/status', 'resourceclaimtemplates', 'resourceslices']);
  });

  test('DeviceClass, ResourceClaim (with status), ResourceClaimTemplate and ResourceSlice: defaults, columns, protobuf, 422s', async () => {
    const dc = await api.post(`${RES}/deviceclasses`, {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'DeviceClass',
      metadata: { name: 'gpu.example.com' },
      spec: { selectors: [{ cel: { expression: 'device.driver == "gpu.example.com"' } }] },
    });
    expect(dc.status).toBe(201);
    expect(dc.body.metadata.generation).toBe(1);
    const badDc = await api.post(`${RES}/deviceclasses`, {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'DeviceClass',
      metadata: { name: 'bad' },
      spec: { selectors: [{ cel: {} }] },
    });
    expect(badDc.status).toBe(422);
    expect(causes(badDc.body).map((c) => c.field)).toEqual(['spec.selectors[0].cel.expression']);

    const claims = `${RES}/namespaces/default/resourceclaims`;
    const claim = await api.post(claims, {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      metadata: { name: 'c1' },
      spec: claimSpec,
      status: { allocation: {} },
    });
    expect(claim.status).toBe(201);
    expect(claim.body.spec.devices.requests[0].exactly).toEqual({ deviceClassName: 'gpu.example.com', allocationMode: 'ExactCount', count: 1 });
    expect(claim.body.status).toEqual({});
    const table = (await api.get(claims, { accept: TABLE })).body;
    expect(table.columnDefinitions.map((d: { name: string }) => d.name)).toEqual(['Name', 'State', 'Age']);
    expect(table.rows[0].cells.slice(0, 2)).toEqual(['c1', 'pending']);
    const current = claim.body;
    current.status = {
      allocation: { devices: { results: [{ request: 'gpu', driver: 'gpu.example.com', pool: 'node-1', device: 'gpu-0' }] } },
      reservedFor: [{ resource: 'pods', name: 'p', uid: 'u1' }],
    };
    const allocated = await api.put(`${claims}/c1/status`, current);
    expect(allocated.status).toBe(200);
    expect((await api.get(claims, { accept: TABLE })).body.rows[0].cells[1]).toBe('allocated,reserved');
    const changed = await api.put(`${claims}/c1`, {
      ...allocated.body,
      spec: { devices: { requests: [{ name: 'other', exactly: { deviceClassName: 'gpu.example.com' } }] } },
    });
    expect(changed.status).toBe(422);
    expect(causes(changed.body)).toEqual([expect.objectContaining({ field: 'spec', message: expect.stringContaining('field is immutable') })]);
    const noChoice = await api.post(claims, {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      metadata: { name: 'c2' },
      spec: { devices: { requests: [{ name: 'gpu' }] } },
    });
    expect(noChoice.status).toBe(422);
    expect(causes(noChoice.body)).toEqual([
      expect.objectContaining({ field: 'spec.devices.requests[0]', message: 'Required value: exactly one of `exactly` or `firstAvailable` is required' }),
    ]);
    const proto = await api.get(`${claims}/c1`, { accept: PROTOBUF });
    expect(proto.headers.get('content-type')).toBe(PROTOBUF);

    const templates = `${RES}/namespaces/default/resourceclaimtemplates`;
    const template = await api.post(templates, {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaimTemplate',
      metadata: { name: 't1' },
      spec: { spec: claimSpec },
    });
    expect(template.status).toBe(201);
    expect(template.body.spec.spec.devices.requests[0].exactly.count).toBe(1);

    const slices = `${RES}/resourceslices`;
    const slice = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'resource.k8s.io/v1', kind: 'ResourceSlice', metadata: { name }, spec });
    expect(
      (
        await api.post(
          slices,
          slice('s1', {
            driver: 'gpu.example.com',
            nodeName: 'node-1',
            pool: { name: 'node-1', generation: 1, resourceSliceCount: 1 },
            devices: [{ name: 'gpu-0' }],
          }),
        )
      ).status,
    ).toBe(201);
    expect(
      (await api.post(slices, slice('s2', { driver: 'nic.example.com', allNodes: true, pool: { name: 'shared', generation: 1, resourceSliceCount: 1 } })))
        .status,
    ).toBe(201);
    const sliceTable = (await api.get(slices, { accept: TABLE })).body;
    expect(sliceTable.columnDefinitions.map((d: { name: string }) => d.name)).toEqual(['Name', 'Node', 'Driver', 'Pool', 'Age']);
    expect(sliceTable.rows[0].cells.slice(0, 4)).toEqual(['s1', 'node-1', 'gpu.example.com', 'node-1']);
    const byNode = (await api.get(`${slices}?fieldSelector=spec.nodeName%3Dnode-1`)).body.items.map((s: { metadata: { name: string } }) => s.metadata.name);
    expect(byNode).toEqual(['s1']);
    const both = await api.post(
      slices,
      slice('s3', { driver: 'gpu.example.com', nodeName: 'node-1', allNodes: true, pool: { name: 'p', generation: 0, resourceSliceCount: 1 } }),
    );
    expect(both.status).toBe(422);
    expect(causes(both.body).map((c) => c.field)).toEqual(['spec']);
  });
});

test('OpenAPI v3 documents both groups with their kinds', async () => {
  const index = (await api.get('/openapi/v3')).body;
  for (const [gv, kinds] of [
    ['apis/flowcontrol.apiserver.k8s.io/v1', ['FlowSchema', 'PriorityLevelConfiguration']],
    ['apis/resource.k8s.io/v1', ['DeviceClass', 'ResourceClaim', 'ResourceClaimTemplate', 'ResourceSlice']],
  ] as const) {
    const doc = (await api.get(index.paths[gv].serverRelativeURL)).body;
    const group = gv.split('/')[1];
    for (const kind of kinds) {
      const schema = doc.components.schemas[`io.k8s.api.${group === 'resource.k8s.io' ? 'resource' : 'flowcontrol'}.v1.${kind}`];
      expect(schema['x-kubernetes-group-version-kind']).toEqual([{ group, kind, version: 'v1' }]);
    }
  }
});

describe('pods/eviction', () => {
  test('a policy/v1beta1 Eviction is accepted as kube-apiserver 1.34 still does; other versions are a 400 from Scheme.New', async () => {
    const pod = await api.post('/api/v1/namespaces/default/pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'old-client' },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    });
    expect(pod.status).toBe(201);
    const path = '/api/v1/namespaces/default/pods/old-client/eviction';
    const wrong = await api.post(path, { apiVersion: 'policy/v2', kind: 'Eviction', metadata: { name: 'old-client' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe(
      'Eviction in version "v2" cannot be handled as a Eviction: no kind "Eviction" is registered for version "policy/v2" in scheme "pkg/api/legacyscheme/scheme.go:30"',
    );
    const dry = await api.post(`${path}?dryRun=All`, {
      apiVersion: 'policy/v1beta1',
      kind: 'Eviction',
      metadata: { name: 'old-client' },
      deleteOptions: { gracePeriodSeconds: 0 },
    });
    expect(dry.status).toBe(201);
    expect((await api.get('/api/v1/namespaces/default/pods/old-client')).status).toBe(200);
    const res = await api.post(path, { apiVersion: 'policy/v1beta1', kind: 'Eviction', metadata: { name: 'old-client' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
    expect((await api.get('/api/v1/namespaces/default/pods/old-client')).status).toBe(404);
  });
});

describe('certificatesigningrequests', () => {
  test("spec.uid and spec.extra are the requester's, as kube's CSR strategy sets them, and survive a strict write back", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kapi-csr-'));
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-new',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:P-256',
          '-nodes',
          '-keyout',
          path.join(dir, 'k'),
          '-out',
          path.join(dir, 'r'),
          '-subj',
          '/CN=alice',
        ],
        { stdio: 'ignore' },
      );
      const request = Buffer.from(readFileSync(path.join(dir, 'r'))).toString('base64');
      const as = {
        headers: {
          'Impersonate-User': 'alice',
          'Impersonate-Uid': 'u-1',
          'Impersonate-Group': 'system:masters',
          'Impersonate-Extra-Scopes': 'read',
          'Impersonate-Extra-Team%2fName': 'blue',
        },
      };
      const created = await api.post(
        '/apis/certificates.k8s.io/v1/certificatesigningrequests',
        {
          apiVersion: 'certificates.k8s.io/v1',
          kind: 'CertificateSigningRequest',
          metadata: { name: 'alice' },
          spec: { request, signerName: 'example.com/none', usages: ['client auth'], username: 'mallory', uid: 'forged', extra: { forged: ['x'] } },
        },
        as,
      );
      expect(created.status).toBe(201);
      expect(created.body.spec).toMatchObject({
        username: 'alice',
        uid: 'u-1',
        groups: ['system:masters', 'system:authenticated'],
        extra: { scopes: ['read'], 'team/name': ['blue'] },
      });
      const live = (await api.get('/apis/certificates.k8s.io/v1/certificatesigningrequests/alice')).body;
      expect(live.spec.extra).toEqual({ scopes: ['read'], 'team/name': ['blue'] });
      live.status = { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: '' }] };
      const approved = await api.put('/apis/certificates.k8s.io/v1/certificatesigningrequests/alice/approval?fieldValidation=Strict', live);
      expect(approved.status).toBe(200);
      expect(approved.body.spec.extra).toEqual({ scopes: ['read'], 'team/name': ['blue'] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
