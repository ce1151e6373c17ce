import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually } from '../harness/etcd-keys';
import { startServerProcess, type ServerProcess } from '../harness/process';
import { httpsRequest, opensslCertificateRequest, run } from '../harness/tls';

// Escalation, tried as an attacker would: mallory holds only a namespaced grant to manage RBAC
// objects, mint tokens and approve CSRs in team-a, and uses the real kubectl over TLS with her
// static token to turn that into more. Every attempt must fail with kube-apiserver's answer, and
// leave her with exactly the rights she had.

let kapi: ServerProcess & { port: number; prefix: string };
let dir: string;
let admin: string;
let mallory: string;

const MALLORY_TOKEN = 'mallory-token-0123456789abcdef';
/** A kubelet's credentials: the node n-own. */
const NODE_TOKEN = 'node-token-n-own-0123456789';
const NOT_HELD = /is attempting to grant RBAC permissions not currently held:\n/;

const kubectl = (config: string, args: string[], input?: string) => {
  if (input === undefined) return run('kubectl', [`--kubeconfig=${config}`, ...args], { HOME: dir });
  const file = path.join(dir, `in-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, input);
  return run('kubectl', [`--kubeconfig=${config}`, ...args.map((a) => (a === '-' ? file : a))], { HOME: dir });
};
const asAdmin = (args: string[], input?: string) => kubectl(admin, args, input);
const asMallory = (args: string[], input?: string) => kubectl(mallory, args, input);

/** A kubeconfig for a bearer token, trusting the server's CA, beside the admin's. */
function tokenKubeconfig(token: string, name = 'mallory'): string {
  const config = readFileSync(admin, 'utf8')
    .replace(/client-certificate-data: \S+/, `token: ${token}`)
    .replace(/\n\s+client-key-data: \S+/, '');
  const file = path.join(dir, `${name}.kubeconfig`);
  writeFileSync(file, config);
  return file;
}

async function ok(res: Promise<{ code: number; stdout: string; stderr: string }>): Promise<string> {
  const done = await res;
  if (done.code !== 0) throw new Error(done.stderr);
  return done.stdout;
}

/** What mallory may do, as the server answers her own SelfSubjectAccessReview. */
const mayI = async (...args: string[]): Promise<string> => (await asMallory(['auth', 'can-i', ...args])).stdout.trim();

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kapi-escalation-'));
  writeFileSync(path.join(dir, 'tokens.csv'), `${MALLORY_TOKEN},mallory,uid-mallory\n${NODE_TOKEN},system:node:n-own,uid-n-own,system:nodes\n`);
  // Nodes authorized and confined as kubeadm sets kube-apiserver up.
  kapi = await startServerProcess(
    [`--token-auth-file=${path.join(dir, 'tokens.csv')}`, '--authorization-mode=Node,RBAC', '--enable-admission-plugins=NodeRestriction'],
    { insecure: false },
  );
  admin = path.join(kapi.dataDir, 'admin.kubeconfig');
  mallory = tokenKubeconfig(MALLORY_TOKEN);
  for (const ns of ['team-a', 'team-b']) await ok(asAdmin(['create', 'namespace', ns]));
  const role = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'rbac-manager', namespace: 'team-a' },
    rules: [
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['get', 'list', 'create', 'update', 'patch'] },
      { apiGroups: [''], resources: ['serviceaccounts/token'], verbs: ['create'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
    ],
  };
  const clusterRole = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: 'csr-and-clusterrole-writer' },
    rules: [
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['create'] },
      { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests'], verbs: ['create', 'get'] },
      { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests/approval'], verbs: ['update'] },
    ],
  };
  await ok(asAdmin(['apply', '-f', '-'], JSON.stringify(role)));
  await ok(asAdmin(['apply', '-f', '-'], JSON.stringify(clusterRole)));
  await ok(asAdmin(['create', 'rolebinding', 'mallory-rbac', '--role=rbac-manager', '--user=mallory', '-n', 'team-a']));
  await ok(asAdmin(['create', 'clusterrolebinding', 'mallory-csr', '--clusterrole=csr-and-clusterrole-writer', '--user=mallory']));
  await eventually("mallory's grant", async () => ((await mayI('create', 'rolebindings', '-n', 'team-a')) === 'yes' ? true : undefined));
}, 60_000);

afterAll(async () => {
  await kapi?.stop();
  rmSync(dir, { recursive: true, force: true });
});

afterEach(async () => {
  // Whatever was tried, mallory holds no more than she was given.
  expect(await mayI('get', 'secrets', '-n', 'team-a')).toBe('no');
  expect(await mayI('get', 'secrets', '-n', 'team-b')).toBe('no');
  expect(await mayI('create', 'clusterrolebindings')).toBe('no');
});

describe('bind: a binding grants only what its writer holds', () => {
  test('binding cluster-admin to herself in her namespace is refused, and nothing is stored', async () => {
    const res = await asMallory(['create', 'rolebinding', 'grab', '--clusterrole=cluster-admin', '--user=mallory', '-n', 'team-a']);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain(
      'error: failed to create rolebinding: rolebindings.rbac.authorization.k8s.io "grab" is forbidden: user "mallory" (groups=["system:authenticated"])',
    );
    expect(res.stderr).toMatch(NOT_HELD);
    expect((await asAdmin(['get', 'rolebinding', 'grab', '-n', 'team-a'])).stderr).toContain('NotFound');
  });

  test('re-pointing her own binding at a stronger role is refused: roleRef is immutable', async () => {
    const patch = JSON.stringify({ roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' } });
    const res = await asMallory(['patch', 'rolebinding', 'mallory-rbac', '-n', 'team-a', '--type=merge', '-p', patch]);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toMatch(/rolebindings.rbac.authorization.k8s.io "mallory-rbac" is (invalid|forbidden)/);
    expect(JSON.parse(await ok(asAdmin(['get', 'rolebinding', 'mallory-rbac', '-n', 'team-a', '-o', 'json']))).roleRef.name).toBe('rbac-manager');
  });

  test('a ClusterRoleBinding is not hers to create at all', async () => {
    const res = await asMallory(['create', 'clusterrolebinding', 'grab', '--clusterrole=view', '--user=mallory']);
    expect(res.stderr).toContain(
      'error: failed to create clusterrolebinding: clusterrolebindings.rbac.authorization.k8s.io is forbidden: User "mallory" cannot create resource "clusterrolebindings" in API group "rbac.authorization.k8s.io" at the cluster scope',
    );
  });
});

describe('escalate: a role grants only what its writer holds', () => {
  test('a new Role with every verb on every resource is refused', async () => {
    const res = await asMallory(['create', 'role', 'wide', '--verb=*', '--resource=*', '-n', 'team-a']);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('roles.rbac.authorization.k8s.io "wide" is forbidden: user "mallory" (groups=["system:authenticated"])');
    expect(res.stderr).toMatch(NOT_HELD);
  });

  test('widening the role she is bound to is refused; a rule she holds may be added', async () => {
    const wider = JSON.stringify([{ op: 'add', path: '/rules/-', value: { apiGroups: [''], resources: ['secrets'], verbs: ['get'] } }]);
    const res = await asMallory(['patch', 'role', 'rbac-manager', '-n', 'team-a', '--type=json', '-p', wider]);
    expect(res.stderr).toContain('roles.rbac.authorization.k8s.io "rbac-manager" is forbidden');
    expect(res.stderr).toMatch(NOT_HELD);
    const held = JSON.stringify([{ op: 'add', path: '/rules/-', value: { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] } }]);
    await ok(asMallory(['patch', 'role', 'rbac-manager', '-n', 'team-a', '--type=json', '-p', held]));
  });

  test('an aggregating ClusterRole needs cluster-admin, even with no rules of its own', async () => {
    const aggregating = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'collects-everything' },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' } }] },
    };
    const res = await asMallory(['create', '-f', '-'], JSON.stringify(aggregating));
    expect(res.stderr).toContain('Error from server (Forbidden): error when creating');
    expect(res.stderr).toContain(
      'clusterroles.rbac.authorization.k8s.io "collects-everything" is forbidden: must have cluster-admin privileges to use the aggregationRule',
    );
    expect((await asAdmin(['get', 'clusterrole', 'collects-everything'])).stderr).toContain('NotFound');
  });
});

describe('credentials in other namespaces and other names', () => {
  test('a token for a ServiceAccount of another namespace is refused', async () => {
    await eventually('team-b/default', async () => ((await asAdmin(['get', 'serviceaccount', 'default', '-n', 'team-b'])).code === 0 ? true : undefined));
    const res = await asMallory(['create', 'token', 'default', '-n', 'team-b']);
    expect(res.stderr).toContain(
      'error: failed to create token: serviceaccounts "default" is forbidden: User "mallory" cannot create resource "serviceaccounts/token" in API group "" in the namespace "team-b"',
    );
  });

  test('impersonating an admin, or system:masters, is refused', async () => {
    const res = await asMallory(['get', 'secrets', '-n', 'team-a', '--as=kubernetes-admin', '--as-group=system:masters']);
    expect(res.stderr).toContain(
      'Error from server (Forbidden): users "kubernetes-admin" is forbidden: User "mallory" cannot impersonate resource "users" in API group "" at the cluster scope',
    );
  });

  test('approving her own CSR for a client certificate needs approve on the signer', async () => {
    const { csr: request } = await opensslCertificateRequest(dir, 'self', '/CN=mallory/O=team');
    const csr = {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: 'mallory-self' },
      spec: { request: Buffer.from(request).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'] },
    };
    await ok(asMallory(['create', '-f', '-'], JSON.stringify(csr)));
    const res = await asMallory(['certificate', 'approve', 'mallory-self']);
    expect(res.stderr).toContain(
      'certificatesigningrequests.certificates.k8s.io "mallory-self" is forbidden: user not permitted to approve requests with signerName "kubernetes.io/kube-apiserver-client"',
    );
    const stored = JSON.parse(await ok(asAdmin(['get', 'csr', 'mallory-self', '-o', 'json'])));
    expect(stored.status.conditions ?? []).toEqual([]);
    expect(stored.spec.username).toBe('mallory');
  });
});

describe('a session into a pod needs create, whatever the protocol', () => {
  // A WebSocket opens exec, attach and port-forward with a GET, which RBAC sees as `get`; kube
  // 1.35+ also asks for `create` (AuthorizePodWebsocketUpgradeCreatePermission), so a role that
  // reads everything does not open shells.
  const serverCa = () => Buffer.from(/certificate-authority-data: (\S+)/.exec(readFileSync(admin, 'utf8'))![1], 'base64').toString();
  const websocket = (subresource: string) =>
    httpsRequest(
      `${kapi.url}/api/v1/namespaces/team-a/pods/unplaced/${subresource}`,
      { ca: serverCa() },
      {
        headers: {
          Authorization: `Bearer ${MALLORY_TOKEN}`,
          Connection: 'Upgrade',
          Upgrade: 'websocket',
          'Sec-WebSocket-Version': '13',
          'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
          'Sec-WebSocket-Protocol': 'v5.channel.k8s.io',
        },
      },
    );

  beforeAll(async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'unplaced', namespace: 'team-a' },
      spec: { schedulerName: 'none', containers: [{ name: 'c', image: 'x' }] },
    };
    await ok(asAdmin(['create', '-f', '-'], JSON.stringify(pod)));
    await ok(asAdmin(['create', 'role', 'session-reader', '-n', 'team-a', '--verb=get', '--resource=pods/exec,pods/attach,pods/portforward']));
    await ok(asAdmin(['create', 'rolebinding', 'mallory-session-reader', '--role=session-reader', '--user=mallory', '-n', 'team-a']));
    await eventually('her get on pods/exec', async () => ((await mayI('get', 'pods', '--subresource=exec', '-n', 'team-a')) === 'yes' ? true : undefined));
  });

  test('get alone on pods/exec, attach and portforward opens no WebSocket session: 403 with NewForbidden of the pod', async () => {
    for (const sub of ['exec?command=sh&stdin=true&stdout=true', 'attach?stdout=true', 'portforward?ports=80']) {
      const res = await websocket(sub);
      expect([res.status, res.body]).toEqual([
        403,
        {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'pods "unplaced" is forbidden: ',
          reason: 'Forbidden',
          details: { name: 'unplaced', kind: 'pods' },
          code: 403,
        },
      ]);
    }
  });

  test('with create as well, the request goes on to the pod (which has no host yet)', async () => {
    await ok(asAdmin(['create', 'role', 'session-opener', '-n', 'team-a', '--verb=create', '--resource=pods/exec']));
    await ok(asAdmin(['create', 'rolebinding', 'mallory-session-opener', '--role=session-opener', '--user=mallory', '-n', 'team-a']));
    await eventually('her create on pods/exec', async () =>
      (await mayI('create', 'pods', '--subresource=exec', '-n', 'team-a')) === 'yes' ? true : undefined,
    );
    const res = await websocket('exec?command=sh&stdout=true');
    expect([res.status, res.body?.message]).toEqual([400, 'pod unplaced does not have a host assigned']);
  });
});

describe("a node's own Node object", () => {
  // CVE-2025-5187: a node that gives its Node an owner that does not exist has the garbage
  // collector delete it, and may then create it again without its taints. NodeRestriction
  // refuses any change of the Node's ownerReferences by the node itself.
  test('the node may not add an owner reference to its Node; other writes of its own stay allowed', async () => {
    const node = tokenKubeconfig(NODE_TOKEN, 'n-own');
    const asNode = (args: string[], input?: string) => kubectl(node, args, input);
    await ok(
      asNode(
        ['create', '-f', '-'],
        JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n-own', labels: { 'kubernetes.io/hostname': 'n-own' } } }),
      ),
    );
    const owner = { metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'Namespace', name: 'gone', uid: '00000000-0000-0000-0000-000000000000' }] } };
    const res = await asNode(['patch', 'node', 'n-own', '--type=merge', '-p', JSON.stringify(owner)]);
    expect(res.stderr).toContain('Error from server (Forbidden): nodes "n-own" is forbidden: node "n-own" is not allowed to modify ownerReferences');
    await ok(asNode(['label', 'node', 'n-own', 'node.kubernetes.io/instance-type=small']));
    const stored = JSON.parse(await ok(asAdmin(['get', 'node', 'n-own', '-o', 'json'])));
    expect([stored.metadata.ownerReferences, stored.metadata.labels['node.kubernetes.io/instance-type']]).toEqual([undefined, 'small']);
  });
});
