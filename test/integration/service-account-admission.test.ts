import { X509Certificate } from 'node:crypto';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

/**
 * The ServiceAccount admission plugin with the controllers it leans on: every namespace gets its
 * `default` ServiceAccount and the `kube-root-ca.crt` ConfigMap, and pods get the account and the
 * kube-api-access projected volume, as kube-apiserver and kube-controller-manager do.
 */

let server: Awaited<ReturnType<typeof startTestServer>>;
let bare: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;

beforeAll(async () => {
  [server, bare] = await Promise.all([startTestServer(), startTestServer({ disableAdmissionPlugins: ['ServiceAccount'] })]);
  api = new Api(server.url);
});

afterAll(async () => {
  await Promise.all([server.close(), bare.close()]);
});

const pod = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'nginx' }], initContainers: [{ name: 'i', image: 'busybox' }], ...spec },
});

async function eventually<T>(read: () => Promise<T | null>, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== null) return value;
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function namespace(name: string, on = api): Promise<void> {
  expect((await on.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } })).status).toBe(201);
}

test('a new namespace gets its default ServiceAccount, made again once deleted', async () => {
  await namespace('sa-new');
  const read = async () => {
    const res = await api.get('/api/v1/namespaces/sa-new/serviceaccounts/default');
    return res.status === 200 ? res.body : null;
  };
  const first = await eventually(read);
  expect(first.metadata.name).toBe('default');
  expect((await api.delete('/api/v1/namespaces/sa-new/serviceaccounts/default')).status).toBe(200);
  const again = await eventually(async () => {
    const sa = await read();
    return sa && sa.metadata.uid !== first.metadata.uid ? sa : null;
  });
  expect(again.metadata.name).toBe('default');
});

test('a new namespace gets kube-root-ca.crt with the cluster CA, put back when changed', async () => {
  await namespace('ca-new');
  const path = '/api/v1/namespaces/ca-new/configmaps/kube-root-ca.crt';
  const cm = await eventually(async () => {
    const res = await api.get(path);
    return res.status === 200 ? res.body : null;
  });
  expect(Object.keys(cm.data)).toEqual(['ca.crt']);
  expect(new X509Certificate(cm.data['ca.crt']).ca).toBe(true);
  expect(cm.metadata.annotations['kubernetes.io/description']).toMatch(/^Contains a CA bundle that can be used to verify the kube-apiserver/);
  const ca = cm.data['ca.crt'];
  expect((await api.put(path, { ...cm, data: { 'ca.crt': 'tampered', extra: 'x' } })).status).toBe(200);
  const restored = await eventually(async () => {
    const res = await api.get(path);
    return res.body.data?.['ca.crt'] === ca ? res.body : null;
  });
  expect(restored.data).toEqual({ 'ca.crt': ca });
});

test('a pod without serviceAccountName runs as default and mounts the kube-api-access projected volume in every container', async () => {
  await namespace('sa-pods');
  // Created right after its namespace: admission waits for the controller's default account, as kube's does.
  const res = await api.post('/api/v1/namespaces/sa-pods/pods', pod('p1'));
  expect(res.status).toBe(201);
  const spec = res.body.spec;
  expect(spec.serviceAccountName).toBe('default');
  expect(spec.serviceAccount).toBe('default');
  expect(spec.volumes).toHaveLength(1);
  const volume = spec.volumes[0];
  expect(volume.name).toMatch(/^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  expect(volume.projected).toEqual({
    defaultMode: 420,
    sources: [
      { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
  });
  const mount = { name: volume.name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' };
  expect(spec.containers[0].volumeMounts).toEqual([mount]);
  expect(spec.initContainers[0].volumeMounts).toEqual([mount]);
});

test('automountServiceAccountToken false, on the pod or on its account, leaves the pod without the volume', async () => {
  const onPod = await api.post('/api/v1/namespaces/default/pods', pod('no-automount', { automountServiceAccountToken: false }));
  expect(onPod.status).toBe(201);
  expect(onPod.body.spec.serviceAccountName).toBe('default');
  expect(onPod.body.spec.volumes).toBeUndefined();
  expect(onPod.body.spec.containers[0].volumeMounts).toBeUndefined();

  const sa = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'quiet' }, automountServiceAccountToken: false };
  expect((await api.post('/api/v1/namespaces/default/serviceaccounts', sa)).status).toBe(201);
  const onAccount = await api.post('/api/v1/namespaces/default/pods', pod('quiet-pod', { serviceAccountName: 'quiet' }));
  expect(onAccount.status).toBe(201);
  expect(onAccount.body.spec.volumes).toBeUndefined();
});

test('the deprecated serviceAccount field names the account when serviceAccountName is empty', async () => {
  const res = await api.post('/api/v1/namespaces/default/pods', pod('old-style', { serviceAccount: 'quiet' }));
  expect(res.status).toBe(201);
  expect(res.body.spec).toMatchObject({ serviceAccountName: 'quiet', serviceAccount: 'quiet' });
});

test('a pod naming a missing service account is refused with 403', async () => {
  const res = await api.post('/api/v1/namespaces/default/pods', pod('lost', { serviceAccountName: 'missing' }));
  expect(res.status).toBe(403);
  expect(res.body).toMatchObject({
    kind: 'Status',
    status: 'Failure',
    reason: 'Forbidden',
    code: 403,
    message: 'pods "lost" is forbidden: error looking up service account default/missing: serviceaccount "missing" not found',
  });
});

test('with --disable-admission-plugins=ServiceAccount a pod is stored as sent', async () => {
  const plain = new Api(bare.url);
  const res = await plain.post('/api/v1/namespaces/default/pods', pod('as-sent', { serviceAccountName: 'missing' }));
  expect(res.status).toBe(201);
  expect(res.body.spec.serviceAccountName).toBe('missing');
  expect(res.body.spec.volumes).toBeUndefined();
});

test("what admission adds is no manager's: the creator's managed fields hold its own pod, not the token volume or account (kube records them before mutating admission)", async () => {
  await namespace('sa-managed');
  const res = await api.post('/api/v1/namespaces/sa-managed/pods?fieldManager=creator', pod('p1'));
  expect(res.status).toBe(201);
  expect(res.body.spec.volumes[0].name).toMatch(/^kube-api-access-/);
  const [entry] = res.body.metadata.managedFields;
  expect(entry).toMatchObject({ manager: 'creator', operation: 'Update' });
  const owned = JSON.stringify(entry.fieldsV1);
  expect(owned).toContain('"k:{\\"name\\":\\"c\\"}"');
  expect(owned).not.toContain('kube-api-access');
  expect(owned).not.toContain('f:volumes');
  expect(owned).not.toContain('f:serviceAccountName');
});
