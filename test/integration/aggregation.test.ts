import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request } from 'node:https';
import path from 'node:path';
import { createCertificateAuthority, createLeafCertificate, type PemPair } from '../../src/auth/certificates';
import { decodeProtobuf } from '../../src/codec/protobuf';
import { createEstablished, simpleCrd } from '../harness/crds';
import { eventually } from '../harness/etcd-keys';
import { serviceFor, startExtensionServer, wardleApiService, WARDLE_GROUP, WARDLE_VERSION, type ExtensionServer } from '../harness/extension-apiserver';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';
import { httpsRequest, type TlsOptions } from '../harness/tls';

/**
 * kube-aggregator in kapi: APIServices (local ones for every served group-version, validation,
 * availability), requests of an extension server's group-version proxied to it over TLS with the
 * caller in X-Remote-* headers and kapi's front-proxy certificate, after kapi's own authorization;
 * 503s when it cannot be reached; its groups merged into discovery; requestheader authentication
 * of kapi itself; the extension-apiserver-authentication ConfigMap.
 */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
let wardle: ExtensionServer;
let ca: PemPair;
let alice: TlsOptions;
let bob: TlsOptions;

const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';
const WARDLE_NAME = `${WARDLE_VERSION}.${WARDLE_GROUP}`;
const FLUNDERS = `/apis/${WARDLE_GROUP}/${WARDLE_VERSION}/namespaces/default/flunders`;

function userTls(name: string, groups: string[]): TlsOptions {
  const leaf = createLeafCertificate(ca, { commonName: name, organizations: groups, usage: 'client', validDays: 1 });
  return { ca: ca.cert, cert: leaf.cert, key: leaf.key };
}

async function availability(name: string): Promise<{ status: string; reason: string; message: string } | undefined> {
  const res = await api.get(`${APISERVICES}/${name}`);
  return res.body.status?.conditions?.find((c: { type: string }) => c.type === 'Available');
}

/** Waits for an APIService's Available condition to have `reason`. */
function reasonOf(name: string, reason: string) {
  return eventually(`${name} ${reason}`, async () => {
    const c = await availability(name);
    return c?.reason === reason ? c : undefined;
  });
}

beforeAll(async () => {
  server = await startTestServer();
  api = new Api(server.url);
  const pki = path.join(server.dataDir, 'pki');
  ca = { cert: readFileSync(path.join(pki, 'ca.crt'), 'utf8'), key: readFileSync(path.join(pki, 'ca.key'), 'utf8') };
  // As an extension server is configured: from the ConfigMap kube-system publishes.
  const auth = (await api.get('/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication')).body;
  wardle = await startExtensionServer({
    requestHeaderCa: auth.data['requestheader-client-ca-file'],
    allowedNames: JSON.parse(auth.data['requestheader-allowed-names']),
    serviceName: 'wardle',
    namespace: 'default',
  });
  const { service, endpoints } = serviceFor('wardle', 'default', wardle.port);
  expect((await api.post('/api/v1/namespaces/default/services', service)).status).toBe(201);
  expect((await api.post('/api/v1/namespaces/default/endpoints', endpoints)).status).toBe(201);
  const created = await api.post(APISERVICES, wardleApiService(wardle.caBundle, 'wardle', 'default'));
  expect(created.status).toBe(201);
  // alice may read and watch flunders; bob may do nothing.
  await api.post('/apis/rbac.authorization.k8s.io/v1/clusterroles', {
    metadata: { name: 'flunder-reader' },
    rules: [{ apiGroups: [WARDLE_GROUP], resources: ['flunders', 'flunders/attach'], verbs: ['get', 'list', 'watch', 'create'] }],
  });
  await api.post('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    metadata: { name: 'alice-reads-flunders' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'flunder-reader' },
    subjects: [{ kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.k8s.io' }],
  });
  alice = userTls('alice', ['wardle-fans']);
  bob = userTls('bob', []);

  await reasonOf(WARDLE_NAME, 'Passed');
  // The binding is in the authorizer's cache once alice is allowed.
  await eventually('alice allowed', async () => ((await httpsRequest(`${server.secureUrl}${FLUNDERS}`, alice)).status === 200 ? true : undefined));
});

afterAll(async () => {
  await server?.close();
  await wardle?.close();
});

describe('APIServices', () => {
  test('every served group-version has a local APIService, Available "Local", labelled as autoregister labels them', async () => {
    const core = await reasonOf('v1.', 'Local');
    expect(core).toMatchObject({ status: 'True', message: 'Local APIServices are always available' });
    const apps = (await api.get(`${APISERVICES}/v1.apps`)).body;
    expect(apps.spec).toEqual({ group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 });
    expect(apps.metadata.labels).toEqual({ 'kube-aggregator.kubernetes.io/automanaged': 'onstart' });
    await reasonOf('v1.apiregistration.k8s.io', 'Local');
  });

  test('a CRD group-version gets a local APIService (priority 1000/100, automanaged "true") that goes with the CRD', async () => {
    await createEstablished(api, simpleCrd('crd.example.com', 'gizmos', 'Gizmo'));
    const made = await eventually('v1.crd.example.com', async () => {
      const res = await api.get(`${APISERVICES}/v1.crd.example.com`);
      return res.status === 200 && res.body.status?.conditions ? res.body : undefined;
    });
    expect(made.spec).toEqual({ group: 'crd.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 });
    expect(made.metadata.labels).toEqual({ 'kube-aggregator.kubernetes.io/automanaged': 'true' });
    expect(made.status.conditions[0]).toMatchObject({ type: 'Available', status: 'True', reason: 'Local' });
    expect((await api.delete('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.crd.example.com')).status).toBe(200);
    await eventually('v1.crd.example.com gone', async () => ((await api.get(`${APISERVICES}/v1.crd.example.com`)).status === 404 ? true : undefined));
  });

  test("a remote APIService's service port defaults to 443 and it becomes Available once its discovery check passes", async () => {
    const obj = (await api.get(`${APISERVICES}/${WARDLE_NAME}`)).body;
    expect(obj.spec.service).toEqual({ namespace: 'default', name: 'wardle', port: 443 });
    expect(await availability(WARDLE_NAME)).toMatchObject({ status: 'True', reason: 'Passed', message: 'all checks passed' });
    // The check is made with kapi's front-proxy certificate.
    expect(wardle.seen.some((r) => r.url === `/apis/${WARDLE_GROUP}/${WARDLE_VERSION}` && r.clientCn === 'front-proxy-client')).toBe(true);
  });

  test.each([
    [
      'a name other than version.group',
      { metadata: { name: 'v1.wrong.example.com' } },
      'metadata.name: Invalid value: "v1.wrong.example.com": must be `spec.version+"."+spec.group`: "v1.right.example.com"',
    ],
    ['groupPriorityMinimum 0', { groupPriorityMinimum: 0 }, 'spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000'],
    ['versionPriority 1001', { versionPriority: 1001 }, 'spec.versionPriority: Invalid value: 1001: must be positive and less than 1000'],
    [
      'caBundle with insecureSkipTLSVerify',
      { insecureSkipTLSVerify: true },
      'spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present',
    ],
    ['a local one with a caBundle', { service: undefined }, 'spec.caBundle: Invalid value: "'],
  ])('%s is refused with 422', async (_what, override, cause) => {
    const { metadata, ...spec } = override as { metadata?: Record<string, unknown> };
    const body = {
      metadata: metadata ?? { name: 'v1.right.example.com' },
      spec: {
        group: 'right.example.com',
        version: 'v1',
        service: { namespace: 'default', name: 'x' },
        caBundle: wardle.caBundle,
        groupPriorityMinimum: 100,
        versionPriority: 10,
        ...spec,
      },
    };
    const res = await api.post(APISERVICES, body);
    expect(res.status).toBe(422);
    expect(res.body.message).toContain(cause);
  });

  test('an APIService without its Service is ServiceNotFound, one without endpoints MissingEndpoints; both answer 503 "service unavailable"', async () => {
    const gone = { ...wardleApiService(wardle.caBundle, 'nowhere', 'default'), metadata: { name: 'v1.gone.example.com' } } as any;
    gone.spec = { ...gone.spec, group: 'gone.example.com', version: 'v1' };
    expect((await api.post(APISERVICES, gone)).status).toBe(201);
    expect(await reasonOf('v1.gone.example.com', 'ServiceNotFound')).toMatchObject({ status: 'False', message: 'service/nowhere in "default" is not present' });
    await api.post('/api/v1/namespaces/default/services', serviceFor('empty', 'default', 1).service);
    const empty = {
      ...gone,
      metadata: { name: 'v1.empty.example.com' },
      spec: { ...gone.spec, group: 'empty.example.com', service: { namespace: 'default', name: 'empty' } },
    };
    expect((await api.post(APISERVICES, empty)).status).toBe(201);
    expect((await reasonOf('v1.empty.example.com', 'MissingEndpoints')).status).toBe('False');
    const res = await api.get('/apis/empty.example.com/v1/namespaces/default/things');
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.text).toBe('service unavailable\n');
    // Endpoints appearing are noticed at once (well before the 10 s resync): the check now reaches the server, which serves no such group.
    await api.post('/api/v1/namespaces/default/endpoints', serviceFor('empty', 'default', wardle.port).endpoints);
    const reached = await eventually(
      'empty checked again',
      async () => {
        const c = await availability('v1.empty.example.com');
        return c?.reason === 'FailedDiscoveryCheck' ? c : undefined;
      },
      5000,
    );
    // The check verifies the backend's certificate for the Service's name, which this one does not carry.
    expect(reached.message).toBe(
      `failing or missing response from https://127.0.0.1:${wardle.port}/apis/empty.example.com/v1: tls: failed to verify certificate: x509: certificate is valid for other names, not empty.default.svc`,
    );
  });

  test('TLS to the backend: a caBundle that did not sign its certificate fails the discovery check; insecureSkipTLSVerify skips verification', async () => {
    const otherCa = Buffer.from(ca.cert).toString('base64');
    const spec = (group: string, extra: Record<string, unknown>) => ({
      metadata: { name: `v1.${group}` },
      spec: { group, version: 'v1', service: { namespace: 'default', name: 'wardle' }, groupPriorityMinimum: 100, versionPriority: 10, ...extra },
    });
    expect((await api.post(APISERVICES, spec('wrongca.example.com', { caBundle: otherCa }))).status).toBe(201);
    expect((await api.post(APISERVICES, spec('insecure.example.com', { insecureSkipTLSVerify: true }))).status).toBe(201);
    const wrong = await reasonOf('v1.wrongca.example.com', 'FailedDiscoveryCheck');
    expect(wrong.message).toBe(
      `failing or missing response from https://127.0.0.1:${wardle.port}/apis/wrongca.example.com/v1: tls: failed to verify certificate: x509: certificate signed by unknown authority`,
    );
    // The extension server answers 404 for a group it does not serve: reached, but not Passed.
    const insecure = await reasonOf('v1.insecure.example.com', 'FailedDiscoveryCheck');
    expect(insecure.message).toBe(
      `failing or missing response from https://127.0.0.1:${wardle.port}/apis/insecure.example.com/v1: bad status from https://127.0.0.1:${wardle.port}/apis/insecure.example.com/v1: 404`,
    );
  });

  test("an APIService is served in Protobuf (kube-aggregator's generated.proto): the same object as its JSON", async () => {
    const json = (await api.get(`${APISERVICES}/${WARDLE_NAME}`)).body;
    const res = await fetch(`${server.url}${APISERVICES}/${WARDLE_NAME}`, { headers: { Accept: 'application/vnd.kubernetes.protobuf' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.kubernetes.protobuf');
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.subarray(0, 4)).toEqual(Buffer.from('k8s\0'));
    const decoded = decodeProtobuf(body);
    expect(decoded).toEqual(json);
    expect(decoded.spec).toMatchObject({
      service: { namespace: 'default', name: 'wardle', port: 443 },
      group: WARDLE_GROUP,
      version: WARDLE_VERSION,
      caBundle: wardle.caBundle,
    });
  });

  test("OpenAPI names APIService as kube-aggregator's Go package does, with the release's fields and patch types", async () => {
    const doc = (await api.get('/openapi/v3/apis/apiregistration.k8s.io/v1')).body;
    const definition = doc.components.schemas['io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService'];
    expect(definition['x-kubernetes-group-version-kind']).toEqual([{ group: 'apiregistration.k8s.io', kind: 'APIService', version: 'v1' }]);
    expect(doc.components.schemas['io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIServiceSpec'].required).toEqual([
      'groupPriorityMinimum',
      'versionPriority',
    ]);
    expect(Object.keys(doc.paths[`${APISERVICES}/{name}`].patch.requestBody.content)).toContain('application/strategic-merge-patch+json');
  });

  test("kubectl-style Table of APIServices has kube's columns: Name, Service, Available, Age", async () => {
    const res = await api.get(APISERVICES, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    expect(res.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Service', 'Available', 'Age']);
    const row = (name: string) => res.body.rows.find((r: { cells: unknown[] }) => r.cells[0] === name)?.cells.slice(0, 3);
    expect(row('v1.apps')).toEqual(['v1.apps', 'Local', 'True']);
    expect(row(WARDLE_NAME)).toEqual([WARDLE_NAME, 'default/wardle', 'True']);
    expect(row('v1.gone.example.com')).toEqual(['v1.gone.example.com', 'default/nowhere', 'False (ServiceNotFound)']);
  });
});

describe('proxying', () => {
  test("the caller's identity reaches the extension server in X-Remote-* headers, with kapi's front-proxy certificate and without the caller's credentials", async () => {
    const created = await httpsRequest(`${server.secureUrl}${FLUNDERS}`, alice, {
      method: 'POST',
      body: { apiVersion: `${WARDLE_GROUP}/${WARDLE_VERSION}`, kind: 'Flunder', metadata: { name: 'one' }, spec: { color: 'blue' } },
    });
    expect(created.status).toBe(201);
    // The certificate authenticates (x509 comes before bearer tokens); the Authorization header still never reaches the backend.
    const ok = await httpsRequest(`${server.secureUrl}${FLUNDERS}/one?pretty=false`, alice, { headers: { Authorization: 'Bearer not-for-the-backend' } });
    expect(ok.status).toBe(200);
    expect(ok.body.spec).toEqual({ color: 'blue' });
    const seen = wardle.seen.filter((r) => r.url === `${FLUNDERS.replace('/flunders', '/flunders/one')}?pretty=false`).pop()!;
    expect(seen.clientCn).toBe('front-proxy-client');
    expect(seen.headers['x-remote-user']).toBe('alice');
    expect(seen.headers['x-remote-group']).toBe('wardle-fans, system:authenticated');
    expect(Object.keys(seen.headers).filter((h) => h.startsWith('x-remote-extra-'))).toEqual(['x-remote-extra-authentication.kubernetes.io%2fcredential-id']);
    expect(seen.headers.authorization).toBeUndefined();
  });

  test("kapi authorizes first: a caller without a binding gets kapi's 403 and the extension server never sees the request", async () => {
    const before = wardle.seen.length;
    const res = await httpsRequest(`${server.secureUrl}${FLUNDERS}`, bob);
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(
      `flunders.${WARDLE_GROUP} is forbidden: User "bob" cannot list resource "flunders" in API group "${WARDLE_GROUP}" in the namespace "default"`,
    );
    expect(wardle.seen.length).toBe(before);
  });

  test('Table and partial metadata requests go to the extension server unchanged and its answer comes back as it is', async () => {
    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
    const res = await api.get(FLUNDERS, { accept });
    expect(res.status).toBe(200);
    expect(res.body.kind).toBe('Table');
    expect(res.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Color']);
    expect(wardle.seen[wardle.seen.length - 1].headers.accept).toBe(accept);
    // Protobuf is asked for, the extension server answers JSON: kapi does not convert.
    const pb = await api.get(FLUNDERS, { accept: 'application/vnd.kubernetes.protobuf' });
    expect(pb.headers.get('content-type')).toBe('application/json');
    expect(pb.body.kind).toBe('FlunderList');
  });

  test('a watch streams through: events arrive while the request is still open', async () => {
    const first = await new Promise<string>((resolve, reject) => {
      const req = request(`${server.secureUrl}${FLUNDERS}?watch=true`, { ...alice, agent: false }, (res) => {
        res.setEncoding('utf8');
        res.once('data', (chunk: string) => {
          resolve(chunk);
          req.destroy();
        });
      });
      req.on('error', (err) => (err.message.includes('aborted') || (err as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(err)));
      req.end();
    });
    expect(JSON.parse(first.split('\n')[0])).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'one' } } });
  });

  test('an upgrade request (an attach-like stream) is tunnelled both ways after the backend switches protocols', async () => {
    const echoed = await new Promise<{ status: number; data: string }>((resolve, reject) => {
      const req = request(`${server.secureUrl}${FLUNDERS}/one/attach`, { ...alice, agent: false, headers: { Connection: 'Upgrade', Upgrade: 'kapi-echo' } });
      req.on('upgrade', (res, socket) => {
        socket.once('data', (chunk: Buffer) => {
          resolve({ status: res.statusCode ?? 0, data: chunk.toString() });
          socket.destroy();
        });
        socket.write('ping');
      });
      req.on('response', (res) => reject(new Error(`no upgrade: ${res.statusCode}`)));
      req.on('error', reject);
      req.end();
    });
    expect(echoed).toEqual({ status: 101, data: 'ping' });
    const seen = wardle.seen[wardle.seen.length - 1];
    expect([seen.url, seen.clientCn, seen.headers['x-remote-user'], seen.headers.upgrade]).toEqual([
      `${FLUNDERS}/one/attach`,
      'front-proxy-client',
      'alice',
      'kapi-echo',
    ]);
  });

  test('the insecure port proxies as system:unsecured', async () => {
    expect((await api.get(FLUNDERS)).status).toBe(200);
    expect(wardle.seen[wardle.seen.length - 1].headers['x-remote-user']).toBe('system:unsecured');
  });

  test('a backend that cannot be reached is a 503 with the dial error', async () => {
    const dying = await startExtensionServer({
      requestHeaderCa: readFileSync(path.join(server.dataDir, 'pki', 'front-proxy-ca.crt'), 'utf8'),
      allowedNames: ['front-proxy-client'],
      serviceName: 'dying',
      namespace: 'default',
      group: 'dying.example.com',
    });
    const { service, endpoints } = serviceFor('dying', 'default', dying.port);
    await api.post('/api/v1/namespaces/default/services', service);
    await api.post('/api/v1/namespaces/default/endpoints', endpoints);
    expect((await api.post(APISERVICES, wardleApiService(dying.caBundle, 'dying', 'default', 'dying.example.com'))).status).toBe(201);
    await reasonOf(`${WARDLE_VERSION}.dying.example.com`, 'Passed');
    // The server goes away while its APIService is still Available (the next check is up to 10 s off): the proxy's dial fails.
    await dying.close();
    const res = await api.get(`/apis/dying.example.com/${WARDLE_VERSION}/namespaces/default/flunders`);
    expect(res.status).toBe(503);
    expect(res.text).toBe(`dial tcp 127.0.0.1:${dying.port}: connect: connection refused\n`);
  });
});

describe('discovery', () => {
  test("the extension server's group is in /apis, /apis/<group> and aggregated discovery, its resources fetched from it", async () => {
    const groups = (await api.get('/apis')).body.groups;
    expect(groups.find((g: { name: string }) => g.name === WARDLE_GROUP)).toEqual({
      name: WARDLE_GROUP,
      versions: [{ groupVersion: `${WARDLE_GROUP}/${WARDLE_VERSION}`, version: WARDLE_VERSION }],
      preferredVersion: { groupVersion: `${WARDLE_GROUP}/${WARDLE_VERSION}`, version: WARDLE_VERSION },
    });
    expect((await api.get(`/apis/${WARDLE_GROUP}`)).body).toMatchObject({ kind: 'APIGroup', name: WARDLE_GROUP });
    const list = (await api.get(`/apis/${WARDLE_GROUP}/${WARDLE_VERSION}`)).body;
    expect(list.resources.map((r: { name: string }) => r.name)).toEqual(['flunders', 'flunders/status']);
    const aggregated = await eventually('wardle in aggregated discovery', async () => {
      const doc = (await api.get('/apis', { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' })).body;
      return doc.items.find((i: { metadata: { name: string } }) => i.metadata.name === WARDLE_GROUP);
    });
    expect(aggregated.versions[0]).toMatchObject({ version: WARDLE_VERSION, freshness: 'Current' });
    expect(aggregated.versions[0].resources[0]).toEqual({
      resource: 'flunders',
      responseKind: { group: WARDLE_GROUP, version: WARDLE_VERSION, kind: 'Flunder' },
      scope: 'Namespaced',
      singularResource: 'flunder',
      verbs: ['create', 'get', 'list', 'watch'],
      shortNames: ['fl'],
      subresources: [{ subresource: 'status', responseKind: { group: WARDLE_GROUP, version: WARDLE_VERSION, kind: 'Flunder' }, verbs: ['get'] }],
    });
  });
});

describe('front proxies in front of kapi', () => {
  const frontProxy = (): TlsOptions => {
    const pki = path.join(server.dataDir, 'pki');
    return {
      ca: ca.cert,
      cert: readFileSync(path.join(pki, 'front-proxy-client.crt'), 'utf8'),
      key: readFileSync(path.join(pki, 'front-proxy-client.key'), 'utf8'),
    };
  };
  const whoAmI = (tls: TlsOptions, headers: Record<string, string>) =>
    httpsRequest(`${server.secureUrl}/apis/authentication.k8s.io/v1/selfsubjectreviews`, tls, {
      method: 'POST',
      headers,
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    });

  test('a client certificate of the requestheader CA with an allowed name may name the user in X-Remote-* headers', async () => {
    const res = await whoAmI(frontProxy(), { 'X-Remote-User': 'carol', 'X-Remote-Group': 'g1', 'X-Remote-Extra-Scopes': 'a' });
    expect(res.status).toBe(201);
    expect(res.body.status.userInfo).toEqual({ username: 'carol', groups: ['g1', 'system:authenticated'], extra: { scopes: ['a'] } });
  });

  test('the same certificate without headers is no user of its own (401, as its CA is not the client CA), and a user certificate cannot assert others', async () => {
    expect((await whoAmI(frontProxy(), {})).status).toBe(401);
    const asAlice = await whoAmI(alice, { 'X-Remote-User': 'carol' });
    expect(asAlice.body.status.userInfo.username).toBe('alice');
  });

  test('extension-apiserver-authentication holds the client CA and the requestheader settings', async () => {
    const data = (await api.get('/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication')).body.data;
    expect(data['client-ca-file']).toBe(ca.cert);
    expect(data['requestheader-client-ca-file']).toBe(readFileSync(path.join(server.dataDir, 'pki', 'front-proxy-ca.crt'), 'utf8'));
    expect(JSON.parse(data['requestheader-username-headers'])).toEqual(['X-Remote-User']);
    expect(JSON.parse(data['requestheader-group-headers'])).toEqual(['X-Remote-Group']);
    expect(JSON.parse(data['requestheader-extra-headers-prefix'])).toEqual(['X-Remote-Extra-']);
    expect(JSON.parse(data['requestheader-allowed-names'])).toEqual(['front-proxy-client']);
  });
});

describe('front-proxy flags', () => {
  test('--requestheader-* and --proxy-client-* files are used as given, and published for extension servers', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kapi-front-proxy-'));
    const proxyCa = createCertificateAuthority('my-front-proxy-ca');
    const proxyClient = createLeafCertificate(proxyCa, { commonName: 'my-aggregator', usage: 'client', validDays: 1 });
    const file = (name: string, content: string) => {
      writeFileSync(path.join(dir, name), content);
      return path.join(dir, name);
    };
    const other = await startTestServer({
      requestheaderClientCaFile: file('ca.crt', proxyCa.cert),
      proxyClientCertFile: file('client.crt', proxyClient.cert),
      proxyClientKeyFile: file('client.key', proxyClient.key),
      requestheaderAllowedNames: ['my-aggregator'],
      requestheaderUsernameHeaders: ['X-Who'],
      requestheaderGroupHeaders: ['X-Groups'],
    });
    try {
      const data = (await new Api(other.url).get('/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication')).body.data;
      expect(data['requestheader-client-ca-file']).toBe(proxyCa.cert);
      expect(JSON.parse(data['requestheader-allowed-names'])).toEqual(['my-aggregator']);
      expect(JSON.parse(data['requestheader-username-headers'])).toEqual(['X-Who']);
      const serverCa = readFileSync(path.join(other.dataDir, 'pki', 'ca.crt'), 'utf8');
      const review = await httpsRequest(
        `${other.secureUrl}/apis/authentication.k8s.io/v1/selfsubjectreviews`,
        { ca: serverCa, cert: proxyClient.cert, key: proxyClient.key },
        {
          method: 'POST',
          headers: { 'X-Who': 'dave', 'X-Groups': 'ops' },
          body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
        },
      );
      expect(review.body.status.userInfo).toMatchObject({ username: 'dave', groups: ['ops', 'system:authenticated'] });
      // A certificate of the right CA with a name not allowed is refused outright.
      const intruder = createLeafCertificate(proxyCa, { commonName: 'intruder', usage: 'client', validDays: 1 });
      const refused = await httpsRequest(
        `${other.secureUrl}/api/v1/namespaces`,
        { ca: serverCa, cert: intruder.cert, key: intruder.key },
        { headers: { 'X-Who': 'dave' } },
      );
      expect(refused.status).toBe(401);
    } finally {
      await other.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
