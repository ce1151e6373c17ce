import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

/**
 * The LimitRanger admission plugin as kube-apiserver runs it: Container defaults land in pods
 * being created with the kubernetes.io/limit-ranger annotation, and Container, Pod and
 * PersistentVolumeClaim min, max and limit/request ratios are enforced with kube's 403 messages.
 */

let server: Awaited<ReturnType<typeof startTestServer>>;
let bare: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;

beforeAll(async () => {
  // A claim's test marks it Bound by hand, as the binder would: the binder stays out of its way.
  const controllers = ['*', '-persistentvolume-binder-controller'];
  [server, bare] = await Promise.all([startTestServer({ controllers }), startTestServer({ disableAdmissionPlugins: ['LimitRanger'], controllers })]);
  api = new Api(server.url);
});

afterAll(async () => {
  await Promise.all([server.close(), bare.close()]);
});

type Obj = Record<string, any>;

const pod = (name: string, containers: Obj[], spec: Obj = {}): Obj => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers, ...spec } });
const container = (name: string, resources?: Obj): Obj => ({ name, image: 'nginx', ...(resources ? { resources } : {}) });

async function namespaceWith(ns: string, limits: Obj[], on = api): Promise<void> {
  expect((await on.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status).toBe(201);
  const range = { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'limits' }, spec: { limits } };
  expect((await on.post(`/api/v1/namespaces/${ns}/limitranges`, range)).status).toBe(201);
}

const createPod = (ns: string, body: Obj, on = api) => on.post(`/api/v1/namespaces/${ns}/pods`, body);

test('Container defaults fill what each container leaves unset, and the annotation says what was set', async () => {
  await namespaceWith('lr-defaults', [{ type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m' } }]);
  const res = await createPod(
    'lr-defaults',
    pod('web', [container('app'), container('sidecar', { limits: { cpu: '1' } })], { initContainers: [container('init', { requests: { memory: '64Mi' } })] }),
  );
  expect(res.status).toBe(201);
  const [app, sidecar] = res.body.spec.containers;
  // The LimitRange's defaultRequest for memory is its default (SetDefaults_LimitRangeItem).
  expect(app.resources).toEqual({ limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '256Mi' } });
  // A container's own limit stands in for its missing request before the defaults apply (SetDefaults_Pod).
  expect(sidecar.resources).toEqual({ limits: { cpu: '1', memory: '256Mi' }, requests: { cpu: '1', memory: '256Mi' } });
  expect(res.body.spec.initContainers[0].resources).toEqual({ limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '64Mi' } });
  expect(res.body.metadata.annotations['kubernetes.io/limit-ranger']).toBe(
    'LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app; memory request for container sidecar; memory limit for container sidecar; cpu request for init container init; cpu, memory limit for init container init',
  );
  expect(res.body.status.qosClass).toBe('Burstable');
});

test('a pod that sets everything gets no annotation; without the plugin nothing is defaulted', async () => {
  await namespaceWith('lr-none', [{ type: 'Container', default: { cpu: '500m' } }]);
  const full = await createPod('lr-none', pod('full', [container('c', { requests: { cpu: '200m' }, limits: { cpu: '300m' } })]));
  expect(full.status).toBe(201);
  expect(full.body.metadata.annotations?.['kubernetes.io/limit-ranger']).toBeUndefined();
  const off = new Api(bare.url);
  await namespaceWith('lr-off', [{ type: 'Container', default: { cpu: '500m' }, min: { cpu: '100m' } }], off);
  const plain = await createPod('lr-off', pod('plain', [container('c')]), off);
  expect(plain.status).toBe(201);
  expect(plain.body.spec.containers[0].resources).toEqual({});
});

test('Container min, max and maxLimitRequestRatio are refused with kube’s messages', async () => {
  await namespaceWith('lr-container', [{ type: 'Container', min: { cpu: '100m' }, max: { cpu: '2', memory: '1Gi' }, maxLimitRequestRatio: { memory: '2' } }]);
  const low = await createPod('lr-container', pod('x', [container('c', { requests: { cpu: '50m', memory: '256Mi' }, limits: { cpu: '1', memory: '512Mi' } })]));
  expect(low.status).toBe(403);
  expect(low.body).toMatchObject({
    kind: 'Status',
    reason: 'Forbidden',
    code: 403,
    message: 'pods "x" is forbidden: minimum cpu usage per Container is 100m, but request is 50m',
    details: { name: 'x', kind: 'pods' },
  });
  const several = await createPod(
    'lr-container',
    pod('y', [container('c', { requests: { cpu: '0.5', memory: '100Mi' }, limits: { cpu: '3', memory: '2Gi' } })]),
  );
  expect(several.status).toBe(403);
  expect(several.body.message).toBe(
    'pods "y" is forbidden: [maximum cpu usage per Container is 2, but limit is 3, maximum memory usage per Container is 1Gi, but limit is 2Gi, memory max limit to request ratio per Container is 2, but provided ratio is 20.480000]',
  );
  // max defaults the container's limit and request (default and defaultRequest from max), so a bare pod fits.
  const bareOk = await createPod('lr-container', pod('z', [container('c')]));
  expect(bareOk.status).toBe(201);
  expect(bareOk.body.spec.containers[0].resources).toEqual({ limits: { cpu: '2', memory: '1Gi' }, requests: { cpu: '2', memory: '1Gi' } });
});

test('Pod min and max apply to the sum of the containers', async () => {
  await namespaceWith('lr-pod', [{ type: 'Pod', max: { cpu: '1' }, min: { memory: '100Mi' } }]);
  const res = await createPod(
    'lr-pod',
    pod('sum', [
      container('a', { requests: { cpu: '600m', memory: '50Mi' }, limits: { cpu: '600m' } }),
      container('b', { requests: { cpu: '600m', memory: '40Mi' }, limits: { cpu: '600m' } }),
    ]),
  );
  expect(res.status).toBe(403);
  expect(res.body.message).toBe(
    'pods "sum" is forbidden: [minimum memory usage per Pod is 100Mi, but request is 90Mi, maximum cpu usage per Pod is 1, but limit is 1200m]',
  );
  const ok = await createPod('lr-pod', pod('fits', [container('a', { requests: { cpu: '500m', memory: '100Mi' }, limits: { cpu: '500m' } })]));
  expect(ok.status).toBe(201);
});

test('PersistentVolumeClaim min and max apply to its storage request, on create and on update', async () => {
  await namespaceWith('lr-pvc', [{ type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } }]);
  const claim = (name: string, storage: string) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name },
    spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'lr-expandable', resources: { requests: { storage } } },
  });
  // PersistentVolumeClaimResize lets a claim grow only when its class allows volume expansion.
  const expandable = {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 'lr-expandable' },
    provisioner: 'example.com/x',
    allowVolumeExpansion: true,
  };
  expect((await api.post('/apis/storage.k8s.io/v1/storageclasses', expandable)).status).toBe(201);
  const small = await api.post('/api/v1/namespaces/lr-pvc/persistentvolumeclaims', claim('small', '500Mi'));
  expect(small.status).toBe(403);
  expect(small.body.message).toBe('persistentvolumeclaims "small" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi');
  const big = await api.post('/api/v1/namespaces/lr-pvc/persistentvolumeclaims', claim('big', '20Gi'));
  expect(big.body.message).toBe('persistentvolumeclaims "big" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi');
  expect((await api.post('/api/v1/namespaces/lr-pvc/persistentvolumeclaims', claim('ok', '5Gi'))).status).toBe(201);
  // Only a bound claim may grow.
  const bound = await api.patch('/api/v1/namespaces/lr-pvc/persistentvolumeclaims/ok/status', { status: { phase: 'Bound' } }, 'application/merge-patch+json');
  expect(bound.status).toBe(200);
  const grow = await api.patch(
    '/api/v1/namespaces/lr-pvc/persistentvolumeclaims/ok',
    { spec: { resources: { requests: { storage: '11Gi' } } } },
    'application/merge-patch+json',
  );
  expect(grow.status).toBe(403);
  expect(grow.body.message).toBe('persistentvolumeclaims "ok" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 11Gi');
  const within = await api.patch(
    '/api/v1/namespaces/lr-pvc/persistentvolumeclaims/ok',
    { spec: { resources: { requests: { storage: '8Gi' } } } },
    'application/merge-patch+json',
  );
  expect(within.status).toBe(200);
});

test('a dry-run create is defaulted and checked like a real one', async () => {
  await namespaceWith('lr-dry', [{ type: 'Container', default: { memory: '128Mi' }, max: { memory: '256Mi' } }]);
  const dry = await api.post('/api/v1/namespaces/lr-dry/pods?dryRun=All', pod('e', [container('c')]));
  expect(dry.status).toBe(201);
  expect(dry.body.spec.containers[0].resources.limits).toEqual({ memory: '128Mi' });
  expect((await api.get('/api/v1/namespaces/lr-dry/pods/e')).status).toBe(404);
  const over = await api.post('/api/v1/namespaces/lr-dry/pods?dryRun=All', pod('f', [container('c', { limits: { memory: '1Gi' } })]));
  expect(over.status).toBe(403);
  expect(over.body.message).toBe('pods "f" is forbidden: maximum memory usage per Container is 256Mi, but limit is 1Gi');
});
