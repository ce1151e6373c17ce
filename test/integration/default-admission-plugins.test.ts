import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually } from '../harness/etcd-keys';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

const CONTROLLERS = ['*', '-persistentvolume-binder-controller', '-node-lifecycle-controller'];

/**
 * kube-apiserver's smaller default admission plugins, seen over HTTP on a real server:
 * DefaultStorageClass, DefaultIngressClass, StorageObjectInUseProtection (with the pvc- and
 * pv-protection controllers that lift its finalizers), RuntimeClass, and the certificate
 * approval, signing and subject restriction plugins.
 */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;

beforeAll(async () => {
  // The test writes what the binder would (phases, claimRefs), and PUTs nodes it read: the binder and node lifecycle stay out of its way.
  server = await startTestServer({ controllers: CONTROLLERS });
  api = new Api(server.url);
});

afterAll(async () => {
  await server.close();
});

const STORAGE = '/apis/storage.k8s.io/v1/storageclasses';
const INGRESS_CLASSES = '/apis/networking.k8s.io/v1/ingressclasses';
const INGRESSES = '/apis/networking.k8s.io/v1/namespaces/default/ingresses';
const PVCS = '/api/v1/namespaces/default/persistentvolumeclaims';
const PVS = '/api/v1/persistentvolumes';
const PODS = '/api/v1/namespaces/default/pods';
const RUNTIME_CLASSES = '/apis/node.k8s.io/v1/runtimeclasses';
const CSRS = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const RBAC = '/apis/rbac.authorization.k8s.io/v1';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const as = (user: string) => ({ headers: { 'Impersonate-User': user } });

/** Waits until the watch cache the plugins read from has the object. */
async function cached(pathOf: string): Promise<void> {
  await eventually(`${pathOf} in the cache`, async () => ((await api.get(`${pathOf}?resourceVersion=0`)).status === 200 ? true : undefined));
}

async function created(pathOf: string, body: Record<string, any>): Promise<Record<string, any>> {
  const res = await api.post(pathOf, body);
  if (res.status !== 201) throw new Error(`POST ${pathOf}: ${res.status} ${res.text}`);
  return res.body;
}

const claim = (name: string, spec: Record<string, unknown> = {}) => ({
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
});

const pod = (name: string, spec: Record<string, unknown> = {}) => ({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec } });

describe('DefaultStorageClass', () => {
  test('a claim without a class gets the newest default StorageClass; an explicit class, even "", stays', async () => {
    await created(STORAGE, {
      metadata: { name: 'zz-older', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
      provisioner: 'example.com/p',
    });
    await created(STORAGE, { metadata: { name: 'not-default' }, provisioner: 'example.com/p' });
    // creationTimestamp has whole seconds: the next default is a second newer.
    await sleep(1100);
    await created(STORAGE, {
      metadata: { name: 'aa-newer', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
      provisioner: 'example.com/p',
    });
    await cached(`${STORAGE}/aa-newer`);
    expect((await created(PVCS, claim('defaulted'))).spec.storageClassName).toBe('aa-newer');
    expect((await created(PVCS, claim('explicit', { storageClassName: 'not-default' }))).spec.storageClassName).toBe('not-default');
    expect((await created(PVCS, claim('no-class', { storageClassName: '' }))).spec.storageClassName).toBe('');
    const beta = await created(PVCS, { ...claim('beta'), metadata: { name: 'beta', annotations: { 'volume.beta.kubernetes.io/storage-class': 'legacy' } } });
    expect(beta.spec.storageClassName).toBeUndefined();
  });
});

describe('DefaultIngressClass', () => {
  test('an Ingress without a class gets the default IngressClass; one with the class annotation does not', async () => {
    await created(INGRESS_CLASSES, { metadata: { name: 'plain' }, spec: { controller: 'example.com/ingress' } });
    const backend = { defaultBackend: { service: { name: 'web', port: { number: 80 } } } };
    expect((await created(INGRESSES, { metadata: { name: 'before' }, spec: backend })).spec.ingressClassName).toBeUndefined();
    await created(INGRESS_CLASSES, {
      metadata: { name: 'default-one', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } },
      spec: { controller: 'example.com/ingress' },
    });
    await cached(`${INGRESS_CLASSES}/default-one`);
    expect((await created(INGRESSES, { metadata: { name: 'defaulted' }, spec: backend })).spec.ingressClassName).toBe('default-one');
    expect((await created(INGRESSES, { metadata: { name: 'chosen' }, spec: { ...backend, ingressClassName: 'plain' } })).spec.ingressClassName).toBe('plain');
    const annotated = await created(INGRESSES, { metadata: { name: 'annotated', annotations: { 'kubernetes.io/ingress.class': 'nginx' } }, spec: backend });
    expect(annotated.spec.ingressClassName).toBeUndefined();
  });
});

describe('StorageObjectInUseProtection and the protection controllers', () => {
  test('claims and volumes are created with their protection finalizers', async () => {
    expect((await created(PVCS, claim('protected'))).metadata.finalizers).toEqual(['kubernetes.io/pvc-protection']);
    const pv = await created(PVS, {
      metadata: { name: 'protected-pv', finalizers: ['example.com/keep'] },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/pv' } },
    });
    expect(pv.metadata.finalizers).toEqual(['example.com/keep', 'kubernetes.io/pv-protection']);
    expect((await api.post(`${PVCS}?dryRun=All`, claim('dry'))).body.metadata.finalizers).toEqual(['kubernetes.io/pvc-protection']);
  });

  test('a claim a scheduled pod uses stays Terminating until the pod is gone; an unused one goes at once', async () => {
    await created(PVCS, claim('in-use'));
    await created(PVCS, claim('unused'));
    const volumes = [{ name: 'data', persistentVolumeClaim: { claimName: 'in-use' } }];
    await created(PODS, pod('user', { nodeName: 'node-1', volumes }));
    // An unscheduled pod does not hold its claim (the kubelet never starts it).
    await created(PODS, pod('pending', { volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'unused' } }] }));
    expect((await api.delete(`${PVCS}/in-use`)).status).toBe(200);
    expect((await api.delete(`${PVCS}/unused`)).status).toBe(200);
    await eventually('the unused claim gone', async () => ((await api.get(`${PVCS}/unused`)).status === 404 ? true : undefined));
    // The controller has had the time it took the unused one; the used one is still held.
    await sleep(500);
    const held = await api.get(`${PVCS}/in-use`);
    expect([held.status, !!held.body.metadata.deletionTimestamp, held.body.metadata.finalizers]).toEqual([200, true, ['kubernetes.io/pvc-protection']]);
    expect((await api.delete(`${PODS}/user?gracePeriodSeconds=0`)).status).toBe(200);
    await eventually('the claim gone once its pod is', async () => ((await api.get(`${PVCS}/in-use`)).status === 404 ? true : undefined));
  });

  test("a generic ephemeral volume's claim is held only by the pod that owns it", async () => {
    const ephemeral = { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } };
    const owner = await created(PODS, pod('eph', { nodeName: 'node-1', volumes: [{ name: 'scratch', ephemeral }] }));
    const ownerRef = { apiVersion: 'v1', kind: 'Pod', name: 'eph', uid: owner.metadata.uid, controller: true };
    await created(PVCS, { ...claim('eph-scratch'), metadata: { name: 'eph-scratch', ownerReferences: [ownerRef] } });
    // Named as the pod's ephemeral claim would be, but not the pod's: not held.
    await created(PODS, pod('other', { nodeName: 'node-1', volumes: [{ name: 'scratch', ephemeral }] }));
    await created(PVCS, claim('other-scratch'));
    expect((await api.delete(`${PVCS}/eph-scratch`)).status).toBe(200);
    expect((await api.delete(`${PVCS}/other-scratch`)).status).toBe(200);
    await eventually('the claim not owned by its pod gone', async () => ((await api.get(`${PVCS}/other-scratch`)).status === 404 ? true : undefined));
    await sleep(500);
    expect((await api.get(`${PVCS}/eph-scratch`)).status).toBe(200);
    expect((await api.delete(`${PODS}/eph?gracePeriodSeconds=0`)).status).toBe(200);
    await eventually('the owned claim gone with its pod', async () => ((await api.get(`${PVCS}/eph-scratch`)).status === 404 ? true : undefined));
  });

  test('a claim created without the plugin gets the finalizer from the controller', async () => {
    const other = await startTestServer({
      etcdPrefix: server.prefix,
      disableAdmissionPlugins: ['StorageObjectInUseProtection'],
      leaderElect: false,
      controllers: CONTROLLERS,
    });
    try {
      const res = await new Api(other.url).post(PVCS, claim('late'));
      expect([res.status, res.body.metadata.finalizers]).toEqual([201, undefined]);
      await eventually('the finalizer added', async () =>
        (await api.get(`${PVCS}/late`)).body.metadata.finalizers?.[0] === 'kubernetes.io/pvc-protection' ? true : undefined,
      );
    } finally {
      await other.close();
    }
  });

  test('a Bound volume stays Terminating until it is no longer Bound', async () => {
    await created(PVS, {
      metadata: { name: 'bound-pv' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/bound' } },
    });
    const current = (await api.get(`${PVS}/bound-pv`)).body;
    expect((await api.put(`${PVS}/bound-pv/status`, { ...current, status: { phase: 'Bound' } })).status).toBe(200);
    expect((await api.delete(`${PVS}/bound-pv`)).status).toBe(200);
    await sleep(1000);
    const held = await api.get(`${PVS}/bound-pv`);
    expect([held.status, held.body.metadata.finalizers]).toEqual([200, ['kubernetes.io/pv-protection']]);
    expect((await api.put(`${PVS}/bound-pv/status`, { ...held.body, status: { phase: 'Released' } })).status).toBe(200);
    await eventually('the volume gone once released', async () => ((await api.get(`${PVS}/bound-pv`)).status === 404 ? true : undefined));
  });
});

describe('TaintNodesByCondition', () => {
  test('a node is created tainted not-ready (NoSchedule), once', async () => {
    const bare = await created('/api/v1/nodes', { metadata: { name: 'fresh-node' } });
    expect(bare.spec.taints).toEqual([{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }]);
    const tainted = await created('/api/v1/nodes', {
      metadata: { name: 'tainted-node' },
      spec: {
        taints: [
          { key: 'dedicated', value: 'gpu', effect: 'NoExecute' },
          { key: 'node.kubernetes.io/not-ready', value: 'x', effect: 'NoSchedule' },
        ],
      },
    });
    expect(tainted.spec.taints).toEqual([
      { key: 'dedicated', value: 'gpu', effect: 'NoExecute' },
      { key: 'node.kubernetes.io/not-ready', value: 'x', effect: 'NoSchedule' },
    ]);
    // Only creates are tainted: an update that drops the taint keeps it dropped.
    const { spec, ...rest } = bare;
    const updated = await api.put('/api/v1/nodes/fresh-node', { ...rest, spec: { ...spec, taints: [] } });
    expect(updated.status).toBe(200);
    expect(updated.body.spec.taints).toBeUndefined();
  });
});

describe('PersistentVolumeClaimResize', () => {
  const grow = async (name: string, size: string) => {
    const current = (await api.get(`${PVCS}/${name}`)).body;
    current.spec.resources.requests.storage = size;
    return api.put(`${PVCS}/${name}`, current);
  };
  const bind = async (name: string) => {
    const current = (await api.get(`${PVCS}/${name}`)).body;
    expect((await api.put(`${PVCS}/${name}/status`, { ...current, status: { phase: 'Bound' } })).status).toBe(200);
  };

  test('a Bound claim grows only when its StorageClass allows volume expansion', async () => {
    await created(STORAGE, { metadata: { name: 'expandable' }, provisioner: 'example.com/x', allowVolumeExpansion: true });
    await created(STORAGE, { metadata: { name: 'fixed' }, provisioner: 'example.com/x' });
    await cached(`${STORAGE}/expandable`);
    await cached(`${STORAGE}/fixed`);
    await created(PVCS, claim('grows', { storageClassName: 'expandable' }));
    await created(PVCS, claim('stays', { storageClassName: 'fixed' }));
    await bind('grows');
    await bind('stays');
    const refused = await grow('stays', '2Gi');
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe(
      'persistentvolumeclaims "stays" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize',
    );
    const grown = await grow('grows', '2Gi');
    expect(grown.status).toBe(200);
    expect(grown.body.spec.resources.requests.storage).toBe('2Gi');
  });
});

describe('RuntimeClass', () => {
  beforeAll(async () => {
    await created(RUNTIME_CLASSES, {
      metadata: { name: 'sandboxed' },
      handler: 'runsc',
      overhead: { podFixed: { cpu: '250m', memory: '120Mi' } },
      scheduling: { nodeSelector: { sandbox: 'gvisor' }, tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }] },
    });
    await cached(`${RUNTIME_CLASSES}/sandboxed`);
  });

  test("a pod takes its class's overhead and merges its nodeSelector and tolerations", async () => {
    const spec = {
      runtimeClassName: 'sandboxed',
      nodeSelector: { zone: 'a' },
      // Covered by the class's Exists toleration: merged away.
      tolerations: [
        { key: 'sandbox', operator: 'Equal', value: 'yes', effect: 'NoSchedule' },
        { key: 'other', operator: 'Exists' },
      ],
    };
    const made = await created(PODS, pod('sandboxed', spec));
    expect(made.spec.overhead).toEqual({ cpu: '250m', memory: '120Mi' });
    expect(made.spec.nodeSelector).toEqual({ zone: 'a', sandbox: 'gvisor' });
    expect(made.spec.tolerations).toEqual(
      expect.arrayContaining([
        { key: 'other', operator: 'Exists' },
        { key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' },
      ]),
    );
    expect(made.spec.tolerations.some((t: { value?: string }) => t.value === 'yes')).toBe(false);
    // The same overhead written another way is the same overhead.
    expect((await api.post(PODS, pod('same-overhead', { runtimeClassName: 'sandboxed', overhead: { cpu: '0.25', memory: '120Mi' } }))).status).toBe(201);
  });

  test.each([
    ['an unknown class', pod('unknown', { runtimeClassName: 'nope' }), 'pods "unknown" is forbidden: pod rejected: RuntimeClass "nope" not found'],
    [
      'an overhead of its own',
      pod('own-overhead', { runtimeClassName: 'sandboxed', overhead: { cpu: '1' } }),
      `pods "own-overhead" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`,
    ],
    [
      'an overhead without a class',
      pod('classless', { overhead: { cpu: '1' } }),
      'pods "classless" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead',
    ],
    [
      'a conflicting nodeSelector',
      pod('conflict', { runtimeClassName: 'sandboxed', nodeSelector: { sandbox: 'kata' } }),
      'pods "conflict" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox] = gvisor; pod.spec.nodeSelector[sandbox] = kata',
    ],
  ])('a pod with %s is refused with 403', async (_what, body, message) => {
    const res = await api.post(PODS, body);
    expect([res.status, res.body.reason, res.body.message]).toEqual([403, 'Forbidden', message]);
  });

  test('a class created a moment ago is found by a live read', async () => {
    await created(RUNTIME_CLASSES, { metadata: { name: 'fresh' }, handler: 'kata', overhead: { podFixed: { cpu: '1' } } });
    const res = await api.post(PODS, pod('fresh', { runtimeClassName: 'fresh' }));
    expect([res.status, res.body.spec?.overhead]).toEqual([201, { cpu: '1' }]);
  });
});

describe('certificate plugins', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'kapi-csr-plugins-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A PEM certificate request for a subject, made by openssl. */
  function request(subject: string): string {
    const out = path.join(dir, `${subject.replace(/\W/g, '_')}.csr`);
    execFileSync(
      'openssl',
      ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', path.join(dir, 'key.pem'), '-out', out, '-subj', subject],
      { stdio: 'ignore' },
    );
    return Buffer.from(readFileSync(out, 'utf8')).toString('base64');
  }

  const csr = (name: string, signerName: string, subject: string) => ({
    metadata: { name },
    spec: { request: request(subject), signerName, usages: ['client auth'] },
  });

  /** A user bound to a cluster role of these rules; waits until the authorizer sees the binding. */
  async function grant(user: string, rules: unknown[]): Promise<void> {
    await created(`${RBAC}/clusterroles`, { metadata: { name: `${user}-role` }, rules });
    await created(`${RBAC}/clusterrolebindings`, {
      metadata: { name: `${user}-binding` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${user}-role` },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    });
    await eventually(`${user}'s role in force`, async () => ((await api.get(CSRS, as(user))).status === 200 ? true : undefined));
  }

  const readCsrs = { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests'], verbs: ['get', 'list'] };

  test('a kube-apiserver-client request for system:masters is refused; other signers may ask for it', async () => {
    const res = await api.post(CSRS, csr('masters', 'kubernetes.io/kube-apiserver-client', '/O=system:masters/CN=mallory'));
    expect([res.status, res.body.reason, res.body.message]).toEqual([
      403,
      'Forbidden',
      'certificatesigningrequests.certificates.k8s.io "masters" is forbidden: use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed',
    ]);
    expect((await api.post(CSRS, csr('masters-elsewhere', 'example.com/signer', '/O=system:masters/CN=mallory'))).status).toBe(201);
    expect((await api.post(CSRS, csr('team', 'kubernetes.io/kube-apiserver-client', '/O=team-a/CN=carol'))).status).toBe(201);
  });

  test('approval needs the approve verb on the signer, by name or by its domain wildcard', async () => {
    await created(CSRS, csr('to-approve', 'example.com/approved', '/CN=ann'));
    await grant('approver', [readCsrs, { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests/approval'], verbs: ['update'] }]);
    const current = (await api.get(`${CSRS}/to-approve`)).body;
    const approved = { ...current, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'ok' }] } };
    const refused = await api.put(`${CSRS}/to-approve/approval`, approved, as('approver'));
    expect([refused.status, refused.body.message]).toEqual([
      403,
      'certificatesigningrequests.certificates.k8s.io "to-approve" is forbidden: user not permitted to approve requests with signerName "example.com/approved"',
    ]);
    await created(`${RBAC}/clusterroles`, {
      metadata: { name: 'approve-example' },
      rules: [{ apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: ['example.com/*'], verbs: ['approve'] }],
    });
    await created(`${RBAC}/clusterrolebindings`, {
      metadata: { name: 'approve-example' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'approve-example' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'approver' }],
    });
    const ok = await eventually('approval allowed', async () => {
      const res = await api.put(`${CSRS}/to-approve/approval`, approved, as('approver'));
      return res.status === 403 ? undefined : res;
    });
    expect([ok.status, ok.body.status.conditions[0].type]).toEqual([200, 'Approved']);
  });

  test('a status update that changes conditions or the certificate needs the sign verb on the signer', async () => {
    await created(CSRS, csr('to-sign', 'example.com/signed', '/CN=sam'));
    await grant('signer', [readCsrs, { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests/status'], verbs: ['update'] }]);
    const current = (await api.get(`${CSRS}/to-sign`)).body;
    // Nothing the plugin guards changes: no sign verb needed.
    expect((await api.put(`${CSRS}/to-sign/status`, current, as('signer'))).status).toBe(200);
    const failed = { ...current, status: { conditions: [{ type: 'Failed', status: 'True', reason: 'Test', message: 'no' }] } };
    const refused = await api.put(`${CSRS}/to-sign/status`, failed, as('signer'));
    expect([refused.status, refused.body.message]).toEqual([
      403,
      'certificatesigningrequests.certificates.k8s.io "to-sign" is forbidden: user not permitted to sign requests with signerName "example.com/signed"',
    ]);
    await created(`${RBAC}/clusterroles`, {
      metadata: { name: 'sign-example' },
      rules: [{ apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: ['example.com/signed'], verbs: ['sign'] }],
    });
    await created(`${RBAC}/clusterrolebindings`, {
      metadata: { name: 'sign-example' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'sign-example' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'signer' }],
    });
    const ok = await eventually('signing allowed', async () => {
      const res = await api.put(`${CSRS}/to-sign/status`, failed, as('signer'));
      return res.status === 403 ? undefined : res;
    });
    expect([ok.status, ok.body.status.conditions[0].type]).toEqual([200, 'Failed']);
  });

  test("kube's approver roles are bootstrapped", async () => {
    const role = await api.get(`${RBAC}/clusterroles/system:certificates.k8s.io:kube-apiserver-client-approver`);
    expect(role.body.rules).toEqual([
      { apiGroups: ['certificates.k8s.io'], resources: ['signers'], resourceNames: ['kubernetes.io/kube-apiserver-client'], verbs: ['approve'] },
    ]);
  });
});
