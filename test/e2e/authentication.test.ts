import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import yaml from 'js-yaml';
import { createCertificateAuthority, createLeafCertificate } from '../../src/auth/certificates';
import { eventually } from '../harness/etcd-keys';
import { startServerProcess, type ServerProcess } from '../harness/process';
import { httpsRequest, run, type TlsOptions } from '../harness/tls';

// Every authenticator over real TLS against a kapi process without its insecure port, with RBAC
// and kube's bootstrap policy: the paths asked for are ones any authenticated user (or anonymous:
// /version and the health checks) may read, and what else a user may do is granted by bindings.

let kapi: ServerProcess & { port: number; prefix: string };
let dir: string;
let ca: string;
let admin: TlsOptions;
let kubeconfig: string;
const STATIC_TOKEN = 'static-token-0123456789';
const ISSUER = 'https://kubernetes.default.svc.cluster.local';

interface KubeconfigFile {
  clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
  users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
}
const decode = (b64: string) => Buffer.from(b64, 'base64').toString();
const kubectl = (args: string[], config = kubeconfig) => run('kubectl', [`--kubeconfig=${config}`, ...args], { HOME: dir });
const get = (path: string, tls: TlsOptions, headers: Record<string, string> = {}) => httpsRequest(`${kapi.secureUrl}${path}`, tls, { headers });
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const UNAUTHORIZED = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kapi-authn-'));
  writeFileSync(path.join(dir, 'tokens.csv'), `${STATIC_TOKEN},alice,uid-alice,"dev,ops"\n`);
  kapi = await startServerProcess([`--token-auth-file=${path.join(dir, 'tokens.csv')}`], { insecure: false });
  kubeconfig = path.join(kapi.dataDir, 'admin.kubeconfig');
  const config = yaml.load(readFileSync(kubeconfig, 'utf8')) as KubeconfigFile;
  ca = decode(config.clusters[0].cluster['certificate-authority-data']);
  admin = { ca, cert: decode(config.users[0].user['client-certificate-data']), key: decode(config.users[0].user['client-key-data']) };
});

afterAll(async () => {
  await kapi?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('TLS', () => {
  test('the generated serving certificate verifies for 127.0.0.1 and localhost; the admin kubeconfig path is printed', async () => {
    expect(kapi.secureUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(kapi.output()).toContain(`admin kubeconfig: ${kubeconfig}`);
    expect(kapi.output()).not.toContain('serving insecurely');
    expect((await get('/version', { ca })).status).toBe(200);
    expect((await httpsRequest(kapi.secureUrl.replace('127.0.0.1', 'localhost') + '/version', { ca })).status).toBe(200);
    expect(readFileSync(path.join(kapi.dataDir, 'pki', 'ca.crt'), 'utf8')).toBe(ca);
  });

  test('TLS 1.1 is refused; a client trusting another CA refuses the server', async () => {
    await expect(get('/version', { ca, minVersion: 'TLSv1', maxVersion: 'TLSv1.1' })).rejects.toThrow();
    await expect(get('/version', { ca: createCertificateAuthority('other').cert })).rejects.toThrow(/self.signed|unable to verify|unable to get/i);
  });

  test('kubectl --kubeconfig <data-dir>/admin.kubeconfig get ns', async () => {
    const res = await kubectl(['get', 'ns']);
    expect(res.stderr).toBe('');
    expect(res.stdout).toMatch(/^NAME\s+STATUS\s+AGE\n/);
    expect(res.stdout).toMatch(/^default\s+Active/m);
  });
});

describe('x509 client certificates', () => {
  test('one signed by the client CA authenticates; another CA, or a serving certificate, is a 401 Unauthorized Status', async () => {
    expect((await get('/api/v1/namespaces', admin)).status).toBe(200);
    const stranger = createLeafCertificate(createCertificateAuthority('other'), {
      commonName: 'mallory',
      organizations: ['system:masters'],
      usage: 'client',
      validDays: 1,
    });
    const refused = await get('/api/v1/namespaces', { ca, ...stranger });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual(UNAUTHORIZED);
    expect(refused.headers['content-type']).toBe('application/json');
    expect(refused.headers['audit-id']).toMatch(/^[0-9a-f-]{36}$/);
    const caPair = { cert: ca, key: readFileSync(path.join(kapi.dataDir, 'pki', 'ca.key'), 'utf8') };
    const serving = createLeafCertificate(caPair, { commonName: 'kubernetes-admin', organizations: ['system:masters'], usage: 'server', validDays: 1 });
    expect((await get('/api', { ca, ...serving })).status).toBe(401);
  });

  test('the Python client with the admin client certificate', async () => {
    const python = (await run('python3', ['-c', 'import kubernetes'])).code === 0 ? 'python3' : '/usr/bin/python3';
    const script =
      'import sys\nfrom kubernetes import client, config\nconfig.load_kube_config(config_file=sys.argv[1])\nprint(" ".join(sorted(n.metadata.name for n in client.CoreV1Api().list_namespace().items)))';
    const res = await run(python, ['-c', script, kubeconfig]);
    expect(res.stderr).toBe('');
    expect(res.stdout.trim().split(' ')).toEqual(expect.arrayContaining(['default', 'kube-system']));
  });
});

describe('bearer tokens', () => {
  test('a static token authenticates; an unknown one is a 401', async () => {
    expect((await get('/api', { ca }, bearer(STATIC_TOKEN))).status).toBe(200);
    const refused = await get('/api', { ca }, bearer('static-token-wrong'));
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual(UNAUTHORIZED);
    expect((await get('/api', { ca }, bearer(`${STATIC_TOKEN}x`))).status).toBe(401);
  });

  test('a service account token from kubectl create token authenticates; TokenReview names it', async () => {
    expect((await kubectl(['create', 'serviceaccount', 'bot'])).code).toBe(0);
    const token = (await kubectl(['create', 'token', 'bot'])).stdout.trim();
    expect((await get('/apis', { ca }, bearer(token))).status).toBe(200);
    const review = await httpsRequest(`${kapi.secureUrl}/apis/authentication.k8s.io/v1/tokenreviews`, admin, { method: 'POST', body: { spec: { token } } });
    expect(review.body.status).toMatchObject({
      authenticated: true,
      user: { username: 'system:serviceaccount:default:bot', groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'] },
    });
    const staticReview = await httpsRequest(`${kapi.secureUrl}/apis/authentication.k8s.io/v1/tokenreviews`, admin, {
      method: 'POST',
      body: { spec: { token: STATIC_TOKEN } },
    });
    expect(staticReview.body.status).toMatchObject({
      authenticated: true,
      user: { username: 'alice', uid: 'uid-alice', groups: ['dev', 'ops', 'system:authenticated'] },
    });
    const [header, payload] = token.split('.');
    const forged = `${header}.${payload}.${Buffer.alloc(64).toString('base64url')}`;
    expect((await get('/apis', { ca }, bearer(forged))).status).toBe(401);
  });

  test('tokens bound to a pod or a secret stop working when it is deleted', async () => {
    await kubectl(['create', 'serviceaccount', 'bound']);
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { serviceAccountName: 'bound', containers: [{ name: 'c', image: 'busybox' }] },
    };
    const created = await run('kubectl', [`--kubeconfig=${kubeconfig}`, 'create', '-f', writeJson('pod.json', pod)], { HOME: dir });
    expect(created.code).toBe(0);
    expect((await kubectl(['create', 'secret', 'generic', 's'])).code).toBe(0);
    const podToken = (await kubectl(['create', 'token', 'bound', '--bound-object-kind=Pod', '--bound-object-name=p'])).stdout.trim();
    const secretToken = (await kubectl(['create', 'token', 'bound', '--bound-object-kind=Secret', '--bound-object-name=s'])).stdout.trim();
    expect((await get('/api', { ca }, bearer(podToken))).status).toBe(200);
    expect((await get('/api', { ca }, bearer(secretToken))).status).toBe(200);
    expect((await kubectl(['delete', 'pod', 'p', '--grace-period=0', '--force'])).code).toBe(0);
    await eventually('the pod token to be refused', async () => ((await get('/api', { ca }, bearer(podToken))).status === 401 ? true : undefined));
    expect((await get('/api', { ca }, bearer(secretToken))).status).toBe(200);
    expect((await kubectl(['delete', 'secret', 's'])).code).toBe(0);
    await eventually('the secret token to be refused', async () => ((await get('/api', { ca }, bearer(secretToken))).status === 401 ? true : undefined));
  });

  test('/openid/v1/jwks verifies a token outside kapi (jose); client-node lists namespaces with the token', async () => {
    const discovery = await get('/.well-known/openid-configuration', admin);
    expect(discovery.status).toBe(200);
    expect(discovery.headers['cache-control']).toBe('public, max-age=3600');
    expect(discovery.body).toEqual({
      issuer: ISSUER,
      jwks_uri: `${kapi.secureUrl}/openid/v1/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256'],
    });
    const jwks = await get('/openid/v1/jwks', admin);
    expect(jwks.headers['content-type']).toBe('application/jwk-set+json');
    expect(jwks.body.keys).toEqual([
      { use: 'sig', kty: 'EC', kid: expect.any(String), crv: 'P-256', alg: 'ES256', x: expect.any(String), y: expect.any(String) },
    ]);
    // What the service account may do once RBAC is enforced: list namespaces.
    const rbac = [
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'ns-reader' },
        rules: [{ apiGroups: [''], resources: ['namespaces'], verbs: ['list'] }],
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'ns-reader' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'ns-reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'reader', namespace: 'default' }],
      },
    ];
    for (const object of rbac) expect((await kubectl(['create', '-f', writeJson(`${object.kind}.json`, object)])).code).toBe(0);
    await kubectl(['create', 'serviceaccount', 'reader']);
    const token = (await kubectl(['create', 'token', 'reader'])).stdout.trim();
    const report = await clients({ server: kapi.secureUrl, ca, token, jwks: jwks.body, issuer: ISSUER, audience: ISSUER });
    expect(report.jose).toEqual({ sub: 'system:serviceaccount:default:reader', alg: 'ES256', kid: jwks.body.keys[0].kid });
    expect(report.joseTampered).toBe('ERR_JWS_SIGNATURE_VERIFICATION_FAILED');
    expect(report.clientNode).toEqual(expect.arrayContaining(['default', 'kube-system']));
  });
});

describe('authorization over TLS', () => {
  test('anonymous requests get only what system:public-info-viewer grants', async () => {
    for (const p of ['/version', '/healthz', '/livez', '/readyz']) expect([p, (await get(p, { ca })).status]).toEqual([p, 200]);
    const namespaces = await get('/api/v1/namespaces', { ca });
    expect(namespaces.status).toBe(403);
    expect(namespaces.body.message).toBe(
      'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope',
    );
    expect((await get('/metrics', { ca })).status).toBe(403);
  });

  test('a static-token user is refused until a binding grants it, then allowed; kubectl auth can-i agrees', async () => {
    const pods = () => get('/api/v1/namespaces/default/pods', { ca }, bearer(STATIC_TOKEN));
    const refused = await pods();
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"');
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'alice-view', namespace: 'default' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
    };
    const made = await httpsRequest(`${kapi.secureUrl}/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings`, admin, {
      method: 'POST',
      body: binding,
    });
    expect(made.status).toBe(201);
    await eventually('alice may list pods', async () => ((await pods()).status === 200 ? true : undefined));
    // alice's own client: the server's CA and her token, no client certificate.
    const caFile = path.join(dir, 'ca.crt');
    writeFileSync(caFile, ca);
    const asAlice = (args: string[]) =>
      run('kubectl', ['--kubeconfig=/dev/null', `--server=${kapi.secureUrl}`, `--certificate-authority=${caFile}`, `--token=${STATIC_TOKEN}`, ...args], {
        HOME: dir,
      });
    expect((await asAlice(['auth', 'can-i', 'list', 'pods', '-n', 'default'])).stdout.trim()).toBe('yes');
    expect((await asAlice(['auth', 'can-i', 'delete', 'pods', '-n', 'default'])).stdout.trim()).toBe('no');
    expect((await asAlice(['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}'])).stdout.trim()).toBe('alice');
  });
});

describe('impersonation over TLS', () => {
  test('a user without the impersonate verb is refused; once granted, the request acts as the impersonated user', async () => {
    const asCarol = { ...bearer(STATIC_TOKEN), 'Impersonate-User': 'carol' };
    const refused = await get('/apis/authentication.k8s.io/v1/selfsubjectreviews', { ca }, asCarol);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('users "carol" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope');
    const grant = (kind: string, name: string, body: Record<string, unknown>) =>
      httpsRequest(`${kapi.secureUrl}/apis/rbac.authorization.k8s.io/v1/${kind}`, admin, {
        method: 'POST',
        body: { apiVersion: 'rbac.authorization.k8s.io/v1', metadata: { name }, ...body },
      });
    expect(
      (
        await grant('clusterroles', 'impersonate-carol', {
          kind: 'ClusterRole',
          rules: [{ apiGroups: [''], resources: ['users'], verbs: ['impersonate'], resourceNames: ['carol'] }],
        })
      ).status,
    ).toBe(201);
    const bound = await grant('clusterrolebindings', 'alice-impersonates-carol', {
      kind: 'ClusterRoleBinding',
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'impersonate-carol' },
      subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
    });
    expect(bound.status).toBe(201);
    const review = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
    const whoami = () =>
      httpsRequest(`${kapi.secureUrl}/apis/authentication.k8s.io/v1/selfsubjectreviews`, { ca }, { method: 'POST', headers: asCarol, body: review });
    await eventually('alice may impersonate carol', async () => ((await whoami()).status === 201 ? true : undefined));
    expect((await whoami()).body.status.userInfo).toEqual({ username: 'carol', groups: ['system:authenticated'] });
  });
});

describe('anonymous requests', () => {
  test('without credentials a request is anonymous; with --anonymous-auth=false it is a 401', async () => {
    expect((await get('/version', { ca })).status).toBe(200);
    expect((await get('/version', { ca }, { Authorization: 'Bearer ' })).status).toBe(200);
    const closed = await startServerProcess(['--anonymous-auth=false'], { insecure: false });
    try {
      const closedCa = readFileSync(path.join(closed.dataDir, 'pki', 'ca.crt'), 'utf8');
      const res = await httpsRequest(`${closed.secureUrl}/version`, { ca: closedCa });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(UNAUTHORIZED);
      const res2 = await run('kubectl', [`--kubeconfig=${path.join(closed.dataDir, 'admin.kubeconfig')}`, 'get', 'ns', 'default', '-o', 'name'], { HOME: dir });
      expect(res2.stdout.trim()).toBe('namespace/default');
    } finally {
      await closed.stop();
    }
  });
});

function writeJson(name: string, value: unknown): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(value));
  return file;
}

function clients(input: Record<string, unknown>): Promise<Record<string, any>> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [path.join(__dirname, 'token-clients.mjs'), JSON.stringify(input)], { timeout: 30_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`token clients failed: ${stderr || err.message}`));
      else resolve(JSON.parse(stdout));
    });
  });
}
