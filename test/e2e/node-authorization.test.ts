import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createLeafCertificate } from '../../src/auth/certificates';
import { startServerProcess, type ServerProcess } from '../harness/process';
import { httpsRequest, type TlsOptions, type TlsResponse } from '../harness/tls';

/**
 * The Node authorizer and node admission from outside: a server started as kubeadm starts
 * kube-apiserver (`--authorization-mode=Node,RBAC`, NodeRestriction), with AlwaysPullImages and
 * DenyServiceExternalIPs, and a kubelet's client certificate (CN system:node:n1, O system:nodes).
 */

let server: ServerProcess;
let admin: TlsOptions;
let kubelet: TlsOptions;

type Req = (method: string, target: string, body?: unknown, contentType?: string) => Promise<TlsResponse>;
const client =
  (tls: () => TlsOptions): Req =>
  (method, target, body, contentType) =>
    httpsRequest(`${server.secureUrl}${target}`, tls(), { method, body, headers: contentType ? { 'Content-Type': contentType } : {} });
const asAdmin = client(() => admin);
const asN1 = client(() => kubelet);

const status = (res: TlsResponse) => res.body as { code: number; reason: string; message: string };
const pod = (name: string, node: string, secret: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: {
    nodeName: node,
    containers: [
      { name: 'c', image: 'busybox', imagePullPolicy: 'IfNotPresent', env: [{ name: 'S', valueFrom: { secretKeyRef: { name: secret, key: 'k' } } }] },
    ],
  },
});

beforeAll(async () => {
  server = await startServerProcess(['--authorization-mode=Node,RBAC', '--enable-admission-plugins=NodeRestriction,AlwaysPullImages,DenyServiceExternalIPs'], {
    insecure: false,
  });
  const pki = path.join(server.dataDir, 'pki');
  const ca = { cert: readFileSync(path.join(pki, 'ca.crt'), 'utf8'), key: readFileSync(path.join(pki, 'ca.key'), 'utf8') };
  const kubeconfig = readFileSync(path.join(server.dataDir, 'admin.kubeconfig'), 'utf8');
  const field = (name: string) => Buffer.from(new RegExp(`${name}: (\\S+)`).exec(kubeconfig)![1], 'base64').toString();
  admin = { ca: ca.cert, cert: field('client-certificate-data'), key: field('client-key-data') };
  const pair = createLeafCertificate(ca, { commonName: 'system:node:n1', organizations: ['system:nodes'], usage: 'client', validDays: 1 });
  kubelet = { ca: ca.cert, cert: pair.cert, key: pair.key };

  for (const name of ['n1', 'n2']) expect((await asAdmin('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name } })).status).toBe(201);
  for (const name of ['s1', 's2']) {
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name }, data: { k: 'dg==' } };
    expect((await asAdmin('POST', '/api/v1/namespaces/default/secrets', secret)).status).toBe(201);
  }
  expect((await asAdmin('POST', '/api/v1/namespaces/default/pods', pod('p1', 'n1', 's1'))).status).toBe(201);
  expect((await asAdmin('POST', '/api/v1/namespaces/default/pods', pod('p2', 'n2', 's2'))).status).toBe(201);
}, 90_000);

afterAll(async () => {
  await server?.stop();
});

describe('the Node authorizer', () => {
  test('a kubelet reads its node and the secret of a pod bound to it, not another node or its pods secret', async () => {
    // The graph is fed by watches: the pod reaches it moments after its creation.
    const deadline = Date.now() + 20_000;
    let own = await asN1('GET', '/api/v1/namespaces/default/secrets/s1');
    while (own.status !== 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      own = await asN1('GET', '/api/v1/namespaces/default/secrets/s1');
    }
    expect(own.status).toBe(200);
    expect((await asN1('GET', '/api/v1/nodes/n1')).status).toBe(200);
    expect((await asN1('GET', '/api/v1/namespaces/default/pods/p1')).status).toBe(200);

    const other = await asN1('GET', '/api/v1/namespaces/default/secrets/s2');
    expect(other.status).toBe(403);
    expect(status(other)).toMatchObject({
      reason: 'Forbidden',
      message:
        'secrets "s2" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" in the namespace "default": ' +
        "no relationship found between node 'n1' and this object",
    });
    expect(status(await asN1('GET', '/api/v1/nodes/n2')).message).toBe(
      `nodes "n2" is forbidden: User "system:node:n1" cannot get resource "nodes" in API group "" at the cluster scope: node 'n1' cannot read 'n2', only its own Node object`,
    );
    // A list of every pod is refused; the kubelet's own, scoped by spec.nodeName, is allowed.
    expect(status(await asN1('GET', '/api/v1/pods')).message).toBe(
      'pods is forbidden: User "system:node:n1" cannot list resource "pods" in API group "" at the cluster scope: can only list/watch pods with spec.nodeName field selector',
    );
    const mine = await asN1('GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dn1');
    expect(mine.status).toBe(200);
    expect((mine.body as { items: { metadata: { name: string } }[] }).items.map((p) => p.metadata.name)).toEqual(['p1']);
    // Beyond the graph, the system:node rules: services are readable, namespaces are not (and RBAC binds nothing to nodes).
    expect((await asN1('GET', '/api/v1/services')).status).toBe(200);
    expect((await asN1('GET', '/api/v1/namespaces')).status).toBe(403);
  }, 60_000);

  test('a pod deleted from the node takes its secret with it', async () => {
    expect((await asAdmin('DELETE', '/api/v1/namespaces/default/pods/p1?gracePeriodSeconds=0')).status).toBe(200);
    const deadline = Date.now() + 20_000;
    let res = await asN1('GET', '/api/v1/namespaces/default/secrets/s1');
    while (res.status !== 403 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      res = await asN1('GET', '/api/v1/namespaces/default/secrets/s1');
    }
    expect(res.status).toBe(403);
  }, 60_000);
});

describe('NodeRestriction', () => {
  test('a kubelet updates its own Node, never another, nor a restricted label or its taints', async () => {
    const merge = 'application/merge-patch+json';
    const allowed = await asN1('PATCH', '/api/v1/nodes/n1', { metadata: { labels: { 'node.kubernetes.io/instance-type': 'big', team: 'a' } } }, merge);
    expect(allowed.status).toBe(200);

    const other = await asN1('PATCH', '/api/v1/nodes/n2', { metadata: { labels: { team: 'a' } } }, merge);
    expect(other.status).toBe(403);
    expect(status(other).message).toBe('nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"');

    const restricted = await asN1(
      'PATCH',
      '/api/v1/nodes/n1',
      { metadata: { labels: { 'node-restriction.kubernetes.io/role': 'db', 'example.kubernetes.io/x': 'y' } } },
      merge,
    );
    expect(restricted.status).toBe(403);
    expect(status(restricted).message).toBe(
      'nodes "n1" is forbidden: is not allowed to modify labels: example.kubernetes.io/x, node-restriction.kubernetes.io/role',
    );

    const taints = await asN1('PATCH', '/api/v1/nodes/n1', { spec: { taints: [{ key: 'mine', effect: 'NoSchedule' }] } }, merge);
    expect(status(taints).message).toBe('nodes "n1" is forbidden: node "n1" is not allowed to modify taints');

    const created = await asN1('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n3' } });
    expect(status(created).message).toBe('nodes "n3" is forbidden: node "n1" is not allowed to modify node "n3"');
  }, 60_000);

  test('a kubelet writes only the status of its pods and its own Lease', async () => {
    const merge = 'application/merge-patch+json';
    const otherStatus = await asN1('PATCH', '/api/v1/namespaces/default/pods/p2/status', { status: { message: 'x' } }, merge);
    expect(otherStatus.status).toBe(403);
    expect(status(otherStatus).message).toBe('pods "p2" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself');

    const lease = (name: string) => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name }, spec: { holderIdentity: name } });
    expect((await asN1('POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', lease('n1'))).status).toBe(201);
    const foreign = await asN1('POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', lease('n2'));
    expect(status(foreign).message).toBe('leases.coordination.k8s.io "n2" is forbidden: can only access node lease with the same name as the requesting node');
  }, 60_000);
});

describe('AlwaysPullImages and DenyServiceExternalIPs', () => {
  test('a created pod pulls Always; a Service may not gain external IPs', async () => {
    const created = await asAdmin('POST', '/api/v1/namespaces/default/pods', pod('p3', '', 's1'));
    expect(created.status).toBe(201);
    expect((created.body as { spec: { containers: { imagePullPolicy: string }[] } }).spec.containers[0].imagePullPolicy).toBe('Always');

    const service = (ips: string[]) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web' },
      spec: { ports: [{ port: 80 }], externalIPs: ips },
    });
    const denied = await asAdmin('POST', '/api/v1/namespaces/default/services', service(['203.0.113.7']));
    expect(denied.status).toBe(403);
    expect(status(denied).message).toBe('services "web" is forbidden: Use of external IPs is denied by admission control');
    expect((await asAdmin('POST', '/api/v1/namespaces/default/services', service([]))).status).toBe(201);
  }, 60_000);
});
