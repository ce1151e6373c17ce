import { readFileSync } from 'node:fs';
import path from 'node:path';
import { API_FIELD_FACTS, GROUP_VERSION_PACKAGES } from '../../src/generated/api-facts';
import { EMULATED_MINOR_DELTAS, PINNED_MINOR } from '../../src/generated/emulation-facts';
import { KUBERNETES_VERSION } from '../../src/server/kubernetes-version';
import { eventually } from '../harness/etcd-keys';
import { Api } from '../harness/http';
import { allStarted, kubectl, startServerProcess, type ServerProcess } from '../harness/process';

/**
 * `kubectl api-resources -o wide` against kapi, compared with kube-apiserver 1.36's default table
 * (test/fixtures/api-resources-1.36.txt, in kubectl's own format: a real cluster's output can be
 * pasted over it). Every resource, with its short names, apiVersion, scope, kind, verbs and
 * categories. kube-apiserver serves only GA group versions by default, so the fixture's kinds are
 * checked against the GA kinds of the pinned k8s.io/api as well. A second server runs with
 * --emulated-version=1.34 and is compared with 1.34's table (test/fixtures/api-resources-1.34.txt),
 * whose kinds are checked against the GA kinds 1.34's k8s.io/api has.
 */

interface Row {
  name: string;
  shortNames: string;
  apiVersion: string;
  namespaced: string;
  kind: string;
  verbs: string;
  categories: string;
}

/** Reads kubectl's aligned table by the header's column offsets (a cell may be empty). */
function parseTable(text: string): Map<string, Row> {
  const [header, ...lines] = text.split('\n').filter((l) => l.trim() !== '');
  const names = ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND', 'VERBS', 'CATEGORIES'];
  const starts = names.map((n) => header.search(new RegExp(`\\b${n}\\b`)));
  if (starts.some((s) => s < 0)) throw new Error(`unexpected header: ${header}`);
  const rows = new Map<string, Row>();
  for (const line of lines) {
    const cell = (i: number) => line.slice(starts[i], i + 1 < starts.length ? starts[i + 1] : undefined).trim();
    const row = {
      name: cell(0),
      shortNames: cell(1),
      apiVersion: cell(2),
      namespaced: cell(3),
      kind: cell(4),
      verbs: cell(5).split(',').sort().join(','),
      categories: cell(6),
    };
    const group = row.apiVersion.includes('/') ? row.apiVersion.split('/')[0] : '';
    rows.set(group ? `${row.name}.${group}` : row.name, row);
  }
  return rows;
}

let kapi: ServerProcess;
let emulating134: ServerProcess;
let alphaGatesOn: ServerProcess;

beforeAll(async () => {
  [kapi, emulating134, alphaGatesOn] = await allStarted([
    startServerProcess(),
    startServerProcess(['--emulated-version=1.34']),
    // Given twice: kube merges repeated --feature-gates.
    startServerProcess([
      '--feature-gates=GenericWorkload=true,ContainerStopSignals=true',
      '--feature-gates=TaintTolerationComparisonOperators=true',
      '--min-compatibility-version=1.34',
    ]),
  ]);
});

afterAll(async () => {
  await Promise.all([kapi.stop(), emulating134.stop(), alphaGatesOn.stop()]);
});

const fixture = (minor: string) => path.join(__dirname, `../fixtures/api-resources-${minor}.txt`);
const PINNED = `${KUBERNETES_VERSION.major}.${KUBERNETES_VERSION.minor}`;

test.each([PINNED, '1.34'])(
  "the %s fixture holds every GA kind with a List type in that release's k8s.io/api (kube-apiserver serves GA group versions by default)",
  (minor) => {
    const absent = minor === PINNED_MINOR ? [] : EMULATED_MINOR_DELTAS[minor].absentMessages;
    // kubectl prints each group's preferred version only (autoscaling/v2, not v1): kinds are compared by group.
    const groupOf = (apiVersion: string) => (apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.lastIndexOf('/')) : '');
    const fixtureKinds = new Set([...parseTable(readFileSync(fixture(minor), 'utf8')).values()].map((r) => `${groupOf(r.apiVersion)}/${r.kind}`));
    const releaseKinds: string[] = [];
    for (const [gv, pkg] of Object.entries(GROUP_VERSION_PACKAGES)) {
      if (!/(^|\/)v[0-9]+$/.test(gv) || gv.startsWith('apidiscovery.k8s.io/') || pkg.startsWith('k8s.io.apimachinery.')) continue;
      for (const message of Object.keys(API_FIELD_FACTS)) {
        const kind = message.slice(pkg.length + 1);
        if (!message.startsWith(`${pkg}.`) || kind.includes('.') || !API_FIELD_FACTS[`${pkg}.${kind}List`] || absent.includes(message)) continue;
        releaseKinds.push(`${groupOf(gv)}/${kind}`);
      }
    }
    expect(releaseKinds.filter((k) => !fixtureKinds.has(k))).toEqual([]);
  },
);

test.each([
  [PINNED, () => kapi],
  ['1.34', () => emulating134],
])('kubectl api-resources -o wide lists what kube-apiserver %s lists by default, the same way', async (minor, server) => {
  const expected = parseTable(readFileSync(fixture(minor), 'utf8'));
  const res = await kubectl(server().url, ['api-resources', '-o', 'wide']);
  expect(res.code).toBe(0);
  const actual = parseTable(res.stdout);

  const differences: string[] = [];
  for (const [key, want] of expected) {
    const got = actual.get(key);
    if (!got) {
      differences.push(`missing: ${key}`);
      continue;
    }
    for (const field of Object.keys(want) as (keyof Row)[]) {
      if (got[field] !== want[field]) differences.push(`${key}: ${field} is "${got[field]}", kube-apiserver has "${want[field]}"`);
    }
  }
  for (const key of actual.keys()) if (!expected.has(key)) differences.push(`not in kube-apiserver's default table: ${key}`);
  expect(differences).toEqual([]);
});

test('kubectl version shows the server as 1.36, and kubectl 1.32 warns about the skew as it does against kube-apiserver 1.36', async () => {
  const res = await kubectl(kapi.url, ['version', '-o', 'json']);
  expect(res.code).toBe(0);
  expect(JSON.parse(res.stdout).serverVersion).toMatchObject({ major: '1', minor: '36', gitVersion: 'v1.36.3+kapi' });
  expect(res.stderr).toMatch(/WARNING: version difference between client \(1\.32\) and server \(1\.36\) exceeds the supported minor version skew of \+\/-1/);
});

test("/version reports the binary's major and minor with the emulation and min compatibility versions beside them, as compatibility's effectiveVersion.Info does", async () => {
  const pinned = await new Api(kapi.url).get('/version');
  expect(pinned.body).toMatchObject({
    major: '1',
    minor: '36',
    emulationMajor: '1',
    emulationMinor: '36',
    minCompatibilityMajor: '1',
    minCompatibilityMinor: '35',
  });
  const emulated = await new Api(emulating134.url).get('/version');
  expect(emulated.body).toMatchObject({
    major: '1',
    minor: '36',
    gitVersion: 'v1.36.3+kapi',
    emulationMajor: '1',
    emulationMinor: '34',
    minCompatibilityMajor: '1',
    minCompatibilityMinor: '33',
  });
  // --min-compatibility-version=1.34 on the 1.36 server.
  expect((await new Api(alphaGatesOn.url).get('/version')).body).toMatchObject({ emulationMinor: '36', minCompatibilityMinor: '34' });
});

test("a 1.34-emulated server serves none of 1.36's new kinds; its OpenAPI v2 and v3 are the binary's schemas, as kube's, at info.version 1.34", async () => {
  const group = (url: string) => new Api(url).get('/apis/admissionregistration.k8s.io/v1');
  const names = (res: { body: unknown }) => (res.body as { resources: { name: string }[] }).resources.map((r) => r.name);
  expect(names(await group(kapi.url))).toContain('mutatingadmissionpolicies');
  const emulatedGroup = await group(emulating134.url);
  expect(names(emulatedGroup)).toContain('validatingadmissionpolicies');
  expect(names(emulatedGroup)).not.toContain('mutatingadmissionpolicies');
  expect((await new Api(emulating134.url).get('/apis/admissionregistration.k8s.io/v1/mutatingadmissionpolicies')).status).toBe(404);
  // 1.36 added ImageVolumeStatus and PodStatus.allocatedResources: kube's OpenAPI comes from the binary's definitions, whatever the emulation version.
  const v3 = async (url: string, gv: string) =>
    (await new Api(url).get(`/openapi/v3/${gv}`)).body as {
      info: { version: string };
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    };
  const pinned = await v3(kapi.url, 'api/v1');
  const emulated = await v3(emulating134.url, 'api/v1');
  expect(pinned.info.version).toBe('1.36');
  expect(emulated.info.version).toBe('1.34');
  expect(emulated.components.schemas['io.k8s.api.core.v1.PodStatus']).toEqual(pinned.components.schemas['io.k8s.api.core.v1.PodStatus']);
  expect(Object.keys(emulated.components.schemas)).toContain('io.k8s.api.core.v1.ImageVolumeStatus');
  expect(Object.keys((await v3(emulating134.url, 'apis/admissionregistration.k8s.io/v1')).components.schemas)).not.toContain(
    'io.k8s.api.admissionregistration.v1.MutatingAdmissionPolicy',
  );
  const v2 = (await new Api(emulating134.url).get('/openapi/v2')).body as {
    info: { version: string };
    definitions: Record<string, { properties?: Record<string, unknown> }>;
  };
  expect(v2.info.version).toBe('1.34');
  expect(Object.keys(v2.definitions)).not.toContain('io.k8s.api.admissionregistration.v1.MutatingAdmissionPolicy');
  expect(Object.keys(v2.definitions['io.k8s.api.core.v1.PodStatus'].properties ?? {})).toContain('allocatedResources');
});

test("kubectl get flowschemas and prioritylevelconfigurations print kube's columns, the bootstrap objects in precedence order", async () => {
  // The configuration producer creates them just after start.
  const fs = await eventually('the bootstrap flow schemas', async () => {
    const r = await kubectl(kapi.url, ['get', 'flowschemas']);
    return r.code === 0 && r.stdout.includes('global-default') ? r : undefined;
  });
  const [header, first, second] = fs.stdout.split('\n');
  expect(header.split(/\s+/)).toEqual(['NAME', 'PRIORITYLEVEL', 'MATCHINGPRECEDENCE', 'DISTINGUISHERMETHOD', 'AGE', 'MISSINGPL']);
  expect(first.split(/\s+/).slice(0, 4)).toEqual(['exempt', 'exempt', '1', '<none>']);
  expect(second.split(/\s+/).slice(0, 4)).toEqual(['probes', 'exempt', '2', '<none>']);
  const pl = await kubectl(kapi.url, ['get', 'prioritylevelconfigurations', 'workload-high']);
  expect(pl.code).toBe(0);
  const [plHeader, row] = pl.stdout.split('\n');
  expect(plHeader.split(/\s+/)).toEqual(['NAME', 'TYPE', 'NOMINALCONCURRENCYSHARES', 'QUEUES', 'HANDSIZE', 'QUEUELENGTHLIMIT', 'AGE']);
  expect(row.split(/\s+/).slice(0, 6)).toEqual(['workload-high', 'Limited', '40', '128', '6', '50']);
});

/** A server-side dry-run create through kubectl: the object as the server would store it, or kubectl's error. */
async function dryRunCreate(server: ServerProcess, manifest: object): Promise<{ code: number; object?: Record<string, unknown>; stderr: string }> {
  // The default ServiceAccount the pod admission looks up is made by a controller just after start.
  return eventually('the default service account', async () => {
    const res = await kubectl(server.url, ['create', '--dry-run=server', '-o', 'json', '-f', '-'], JSON.stringify(manifest));
    if (res.stderr.includes('serviceaccount "default" not found')) return undefined;
    return { code: res.code, object: res.code === 0 ? (JSON.parse(res.stdout) as Record<string, unknown>) : undefined, stderr: res.stderr };
  });
}

const podWith = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
});

test("a pod's alpha-gated field is dropped as kube-apiserver 1.36 drops it, and kept with the gate on; /metrics shows the gates", async () => {
  const grouped = podWith('grouped', { schedulingGroup: { podGroupName: 'training' }, hostnameOverride: 'worker' });
  const dropped = await dryRunCreate(kapi, grouped);
  expect(dropped.code).toBe(0);
  expect(dropped.object?.spec).not.toHaveProperty('schedulingGroup');
  expect(dropped.object?.spec).toHaveProperty('hostnameOverride', 'worker');
  const kept = await dryRunCreate(alphaGatesOn, grouped);
  expect(kept.object?.spec).toHaveProperty('schedulingGroup', { podGroupName: 'training' });

  const metrics = async (server: ServerProcess) => (await new Api(server.url).get('/metrics')).text;
  expect(await metrics(kapi)).toMatch(/^kubernetes_feature_enabled\{name="GenericWorkload",stage="ALPHA"\} 0$/m);
  expect(await metrics(kapi)).toMatch(/^kubernetes_feature_enabled\{name="MutatingAdmissionPolicy",stage=""\} 1$/m);
  expect(await metrics(alphaGatesOn)).toMatch(/^kubernetes_feature_enabled\{name="GenericWorkload",stage="ALPHA"\} 1$/m);
  expect(await metrics(emulating134)).toMatch(/^kubernetes_feature_enabled\{name="MutatingAdmissionPolicy",stage="BETA"\} 0$/m);
  expect(await metrics(emulating134)).not.toMatch(/name="GenericWorkload"/);
});

test("an emulated 1.34 server drops the fields 1.34 gated off or lacked: a pod's hostnameOverride and image volumes, a StatefulSet's maxUnavailable", async () => {
  const pod = await dryRunCreate(emulating134, podWith('named', { hostnameOverride: 'worker' }));
  expect(pod.code).toBe(0);
  expect(pod.object?.spec).not.toHaveProperty('hostnameOverride');
  const statefulSet = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'db' },
    spec: {
      selector: { matchLabels: { app: 'db' } },
      serviceName: 'db',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } },
      template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'c', image: 'postgres' }] } },
    },
  };
  const rollingUpdate = (res: { object?: Record<string, unknown> }) =>
    (res.object?.spec as { updateStrategy: { rollingUpdate?: object } }).updateStrategy.rollingUpdate;
  expect(rollingUpdate(await dryRunCreate(emulating134, statefulSet))).not.toHaveProperty('maxUnavailable');
  expect(rollingUpdate(await dryRunCreate(kapi, statefulSet))).toHaveProperty('maxUnavailable', 2);

  // ImageVolume, beta and off in 1.34, GA in 1.36: the image volume and the mounts naming it are dropped (dropImageVolumes)
  const imaged = podWith('imaged', {
    volumes: [
      { name: 'models', image: { reference: 'registry.example/models:1' } },
      { name: 'scratch', emptyDir: {} },
    ],
    containers: [
      {
        name: 'c',
        image: 'nginx',
        volumeMounts: [
          { name: 'models', mountPath: '/models' },
          { name: 'scratch', mountPath: '/scratch' },
        ],
      },
    ],
  });
  type Spec = { volumes: { name: string }[]; containers: { volumeMounts: { name: string }[] }[] };
  const mounted = (res: { object?: Record<string, unknown> }) => {
    const spec = res.object?.spec as Spec;
    return { volumes: spec.volumes.map((v) => v.name), mounts: spec.containers[0].volumeMounts.map((m) => m.name) };
  };
  expect(mounted(await dryRunCreate(emulating134, imaged))).toEqual({
    volumes: ['scratch', expect.stringMatching(/^kube-api-access-/)],
    mounts: ['scratch', expect.stringMatching(/^kube-api-access-/)],
  });
  expect(mounted(await dryRunCreate(kapi, imaged))).toEqual({
    volumes: ['models', 'scratch', expect.stringMatching(/^kube-api-access-/)],
    mounts: ['models', 'scratch', expect.stringMatching(/^kube-api-access-/)],
  });
});

test("1.36's gate defaults: a stop signal (alpha) is dropped with the lifecycle it empties, a device's taints, shared allocation and binding conditions (beta since 1.36) are kept but not at 1.34, its node allocatable mappings (alpha) not at all", async () => {
  const stopping = podWith('stopping', { os: { name: 'linux' }, containers: [{ name: 'c', image: 'nginx', lifecycle: { stopSignal: 'SIGUSR1' } }] });
  const dropped = await dryRunCreate(kapi, stopping);
  expect(dropped.code).toBe(0);
  expect((dropped.object?.spec as { containers: object[] }).containers[0]).not.toHaveProperty('lifecycle');
  const kept = await dryRunCreate(alphaGatesOn, stopping);
  expect((kept.object?.spec as { containers: object[] }).containers[0]).toHaveProperty('lifecycle', { stopSignal: 'SIGUSR1' });

  const slice = {
    apiVersion: 'resource.k8s.io/v1',
    kind: 'ResourceSlice',
    metadata: { name: 'gpus' },
    spec: {
      driver: 'gpu.example.com',
      pool: { name: 'node-a', generation: 1, resourceSliceCount: 1 },
      nodeName: 'node-a',
      devices: [
        {
          name: 'gpu-0',
          taints: [{ key: 'maintenance', value: 'soon', effect: 'NoSchedule' }],
          // DRAConsumableCapacity and DRADeviceBindingConditions: beta and on in 1.36, off before
          allowMultipleAllocations: true,
          bindsToNode: true,
          bindingConditions: ['attached'],
          bindingFailureConditions: ['failed'],
          // DRANodeAllocatableResources: alpha in 1.36
          nodeAllocatableResourceMappings: { cpu: {} },
        },
      ],
    },
  };
  const device = (res: { object?: Record<string, unknown> }) => (res.object?.spec as { devices: object[] }).devices[0];
  const at136 = await dryRunCreate(kapi, slice);
  expect(at136.stderr).toBe('');
  const { nodeAllocatableResourceMappings, ...withoutAlpha } = slice.spec.devices[0];
  expect(nodeAllocatableResourceMappings).toEqual({ cpu: {} });
  expect(device(at136)).toEqual(withoutAlpha);
  expect(device(await dryRunCreate(emulating134, slice))).toEqual({ name: 'gpu-0' });

  const metrics = (await new Api(kapi.url).get('/metrics')).text;
  expect(metrics).toMatch(/^kubernetes_feature_enabled\{name="ImageVolume",stage=""\} 1$/m);
  expect(metrics).toMatch(/^kubernetes_feature_enabled\{name="DRADeviceTaints",stage="BETA"\} 1$/m);
  expect(metrics).toMatch(/^kubernetes_feature_enabled\{name="PodCertificateRequest",stage="BETA"\} 0$/m);
});

test("a toleration's Gt operator is refused while TaintTolerationComparisonOperators is off, as kube's pod validation refuses it, and accepted with it on", async () => {
  const tolerating = podWith('tolerating', { tolerations: [{ key: 'sla', operator: 'Gt', value: '950', effect: 'NoSchedule' }] });
  const refused = await dryRunCreate(kapi, tolerating);
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toContain(
    'The Pod "tolerating" is invalid: spec.tolerations[0].operator: Unsupported value: "Gt": supported values: "Equal", "Exists"',
  );
  const accepted = await dryRunCreate(alphaGatesOn, tolerating);
  expect(accepted.code).toBe(0);
  expect((accepted.object?.spec as { tolerations: unknown[] }).tolerations).toContainEqual({ key: 'sla', operator: 'Gt', value: '950', effect: 'NoSchedule' });
});
