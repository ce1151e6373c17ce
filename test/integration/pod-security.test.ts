import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually } from '../harness/etcd-keys';
import { Api, type Reply } from '../harness/http';
import { startTestServer } from '../harness/server';

/**
 * PodSecurity admission from outside: a namespace's pod-security.kubernetes.io labels enforce,
 * warn and audit the baseline and restricted levels with kube's messages; workload templates only
 * warn; a stricter enforce label warns about the pods already there; a bad label is refused.
 */

const dir = mkdtempSync(path.join(tmpdir(), 'kapi-psa-'));
const auditLog = path.join(dir, 'audit.log');
const auditPolicy = path.join(dir, 'policy.yaml');
let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;

beforeAll(async () => {
  writeFileSync(auditPolicy, ['apiVersion: audit.k8s.io/v1', 'kind: Policy', 'omitStages: ["RequestReceived"]', 'rules:', '- level: Metadata'].join('\n'));
  server = await startTestServer({ auditLogPath: auditLog, auditPolicyFile: auditPolicy });
  api = new Api(server.url);
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const PSA = 'pod-security.kubernetes.io';
const RESTRICTED_BARE =
  'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), ' +
  'unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), ' +
  'runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), ' +
  'seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';

const podSpec = (container: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  containers: [{ name: 'c', image: 'nginx', ...container }],
  ...extra,
});
const pod = (name: string, spec = podSpec()) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec });
const RESTRICTED_OK = podSpec({
  securityContext: { allowPrivilegeEscalation: false, runAsNonRoot: true, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } },
});
const PRIVILEGED = podSpec({ securityContext: { privileged: true } });

async function namespace(name: string, labels: Record<string, string>): Promise<void> {
  expect((await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } })).status).toBe(201);
}

/** The texts of a response's Warning headers (299 - "text", several joined by ", "). */
function warnings(res: Reply): string[] {
  const header = res.headers.get('warning') ?? '';
  return [...header.matchAll(/299 - ("(?:[^"\\]|\\.)*")/g)].map((m) => JSON.parse(m[1]) as string);
}

/** The ResponseComplete audit event of a request. */
function auditEvent(res: Reply): Promise<Record<string, any>> {
  const id = res.headers.get('audit-id');
  return eventually('the audit event', async () =>
    readFileSync(auditLog, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((e) => e.auditID === id && e.stage === 'ResponseComplete'),
  );
}

test('baseline enforce refuses a privileged pod with kube message and Status; a plain pod passes', async () => {
  await namespace('psa-baseline', { [`${PSA}/enforce`]: 'baseline' });
  const refused = await api.post('/api/v1/namespaces/psa-baseline/pods', pod('priv', PRIVILEGED));
  expect(refused.status).toBe(403);
  expect(refused.body).toMatchObject({
    kind: 'Status',
    status: 'Failure',
    reason: 'Forbidden',
    code: 403,
    message: 'pods "priv" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)',
    details: { name: 'priv', kind: 'pods' },
  });
  const hostly = await api.post(
    '/api/v1/namespaces/psa-baseline/pods',
    pod('hostly', podSpec({ ports: [{ containerPort: 8080, hostPort: 8080 }] }, { hostNetwork: true, volumes: [{ name: 'root', hostPath: { path: '/' } }] })),
  );
  expect(hostly.body.message).toBe(
    'pods "hostly" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true), hostPath volumes (volume "root"), hostPort (container "c" uses hostPort 8080)',
  );
  const plain = await api.post('/api/v1/namespaces/psa-baseline/pods', pod('plain'));
  expect(plain.status).toBe(201);
  expect(plain.headers.get('warning')).toBeNull();
});

test('restricted enforce refuses a bare pod (audited with the enforced policy) and admits a hardened one', async () => {
  await namespace('psa-restricted', { [`${PSA}/enforce`]: 'restricted' });
  const refused = await api.post('/api/v1/namespaces/psa-restricted/pods', pod('x'));
  expect(refused.status).toBe(403);
  expect(refused.body.message).toBe(`pods "x" is forbidden: violates PodSecurity "restricted:latest": ${RESTRICTED_BARE}`);
  expect((await auditEvent(refused)).annotations).toMatchObject({ [`${PSA}/enforce-policy`]: 'restricted:latest' });
  // A pinned version evaluates that version's checks and is named in the message.
  await namespace('psa-pinned', { [`${PSA}/enforce`]: 'restricted', [`${PSA}/enforce-version`]: 'v1.22' });
  const pinned = await api.post(
    '/api/v1/namespaces/psa-pinned/pods',
    pod('x', podSpec({ securityContext: { allowPrivilegeEscalation: false, runAsNonRoot: true, runAsUser: 0 } })),
  );
  expect(pinned.body.message).toBe(
    'pods "x" is forbidden: violates PodSecurity "restricted:v1.22": unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
  );
  const ok = await api.post('/api/v1/namespaces/psa-restricted/pods', pod('ok', RESTRICTED_OK));
  expect(ok.status).toBe(201);
  expect(ok.headers.get('warning')).toBeNull();
});

test('pod updates are evaluated again only when they change an image', async () => {
  await namespace('psa-later', {});
  const created = await api.post('/api/v1/namespaces/psa-later/pods', pod('old'));
  expect(created.status).toBe(201);
  const labelled = await api.patch(
    '/api/v1/namespaces/psa-later',
    { metadata: { labels: { [`${PSA}/enforce`]: 'restricted' } } },
    'application/merge-patch+json',
  );
  expect(labelled.status).toBe(200);
  const current = (await api.get('/api/v1/namespaces/psa-later/pods/old')).body;
  const deadline = await api.put('/api/v1/namespaces/psa-later/pods/old', { ...current, spec: { ...current.spec, activeDeadlineSeconds: 600 } });
  expect(deadline.status).toBe(200);
  const image = { ...deadline.body, spec: { ...deadline.body.spec, containers: [{ ...deadline.body.spec.containers[0], image: 'nginx:2' }] } };
  const refused = await api.put('/api/v1/namespaces/psa-later/pods/old', image);
  expect(refused.status).toBe(403);
  expect(refused.body.message).toBe(`pods "old" is forbidden: violates PodSecurity "restricted:latest": ${RESTRICTED_BARE}`);
});

test('warn admits with the Warning header; audit adds audit-violations and enforce-policy to the audit event', async () => {
  await namespace('psa-warn', { [`${PSA}/warn`]: 'restricted', [`${PSA}/audit`]: 'restricted', [`${PSA}/enforce`]: 'baseline' });
  const res = await api.post('/api/v1/namespaces/psa-warn/pods', pod('w'));
  expect(res.status).toBe(201);
  expect(res.headers.get('warning')).toBe(`299 - ${JSON.stringify(`would violate PodSecurity "restricted:latest": ${RESTRICTED_BARE}`)}`);
  expect((await auditEvent(res)).annotations).toMatchObject({
    [`${PSA}/enforce-policy`]: 'baseline:latest',
    [`${PSA}/audit-violations`]: `would violate PodSecurity "restricted:latest": ${RESTRICTED_BARE}`,
  });
});

test('a Deployment in an enforcing namespace is admitted with a warning, never refused', async () => {
  await namespace('psa-deploy', { [`${PSA}/enforce`]: 'restricted' });
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: podSpec() } },
  };
  const res = await api.post('/apis/apps/v1/namespaces/psa-deploy/deployments', deployment);
  expect(res.status).toBe(201);
  expect(warnings(res)).toEqual([`would violate PodSecurity "restricted:latest": ${RESTRICTED_BARE}`]);
  // Its scale subresource is not a template write: no warning.
  const scaled = await api.patch('/apis/apps/v1/namespaces/psa-deploy/deployments/web/scale', { spec: { replicas: 2 } }, 'application/merge-patch+json');
  expect(scaled.status).toBe(200);
  expect(scaled.headers.get('warning')).toBeNull();
});

test('a stricter enforce label warns about the existing pods that violate it, grouped by reason', async () => {
  await namespace('psa-update', {});
  const base = '/api/v1/namespaces/psa-update/pods';
  for (const [name, spec] of [
    ['p-b', PRIVILEGED],
    ['p-a', PRIVILEGED],
    ['p-c', podSpec({}, { hostPID: true })],
    ['p-ok', podSpec()],
  ] as const) {
    expect((await api.post(base, pod(name, spec))).status).toBe(201);
  }
  await eventually('the pods in the cache', async () => ((await api.get(`${base}?resourceVersion=0`)).body.items.length === 4 ? true : undefined));
  const res = await api.patch('/api/v1/namespaces/psa-update', { metadata: { labels: { [`${PSA}/enforce`]: 'baseline' } } }, 'application/merge-patch+json');
  expect(res.status).toBe(200);
  expect(warnings(res)).toEqual([
    'existing pods in namespace "psa-update" violate the new PodSecurity enforce level "baseline:latest"',
    'p-a (and 1 other pod): privileged',
    'p-c: host namespaces',
  ]);
  // The same level again, or a less strict one, checks nothing.
  const same = await api.patch('/api/v1/namespaces/psa-update', { metadata: { labels: { [`${PSA}/enforce`]: 'privileged' } } }, 'application/merge-patch+json');
  expect(same.headers.get('warning')).toBeNull();
});

test('an invalid level or version label is refused as Invalid', async () => {
  const created = await api.post('/api/v1/namespaces', {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'psa-bad', labels: { [`${PSA}/enforce`]: 'strict' } },
  });
  expect(created.status).toBe(422);
  expect(created.body).toMatchObject({
    reason: 'Invalid',
    message: `Namespace "psa-bad" is invalid: metadata.labels[${PSA}/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted`,
    details: { name: 'psa-bad', kind: 'Namespace', causes: [{ reason: 'FieldValueInvalid', field: `metadata.labels[${PSA}/enforce]` }] },
  });
  await namespace('psa-good', {});
  const updated = await api.patch('/api/v1/namespaces/psa-good', { metadata: { labels: { [`${PSA}/warn-version`]: '1.30' } } }, 'application/merge-patch+json');
  expect(updated.status).toBe(422);
  expect(updated.body.message).toBe(`Namespace "psa-good" is invalid: metadata.labels[${PSA}/warn-version]: Invalid value: "1.30": must be "latest" or "v1.x"`);
});

test('kube-system has no exemption: its labels are enforced like any namespace', async () => {
  const labelled = await api.patch(
    '/api/v1/namespaces/kube-system',
    { metadata: { labels: { [`${PSA}/enforce`]: 'baseline' } } },
    'application/merge-patch+json',
  );
  expect(labelled.status).toBe(200);
  const refused = await api.post('/api/v1/namespaces/kube-system/pods', pod('priv', PRIVILEGED));
  expect(refused.status).toBe(403);
  expect(refused.body.message).toContain('violates PodSecurity "baseline:latest": privileged');
});
