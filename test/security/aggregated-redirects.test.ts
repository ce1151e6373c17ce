import { eventually } from '../harness/etcd-keys';
import { serviceFor, startExtensionServer, wardleApiService, WARDLE_GROUP, WARDLE_VERSION, type ExtensionServer } from '../harness/extension-apiserver';
import { grantRole, startSecureKapi, type SecureKapi } from '../harness/secure-process';

// A hostile (or compromised) aggregated API server answers a client's request through kapi with a
// redirect to a server of its choosing. Followed, the client would take its credentials and its
// request there (CVE-2022-3172). kube-apiserver's aggregator replaces such an answer with a 502
// (--aggregator-reject-forwarding-redirect, on by default); so does kapi.

const RITA = 'rita-token-r3d1r3ct-r3fu53d';
const FLUNDERS = `/apis/${WARDLE_GROUP}/${WARDLE_VERSION}/namespaces/default/flunders`;
let kapi: SecureKapi;
let wardle: ExtensionServer;

beforeAll(async () => {
  kapi = await startSecureKapi([`${RITA},rita,uid-rita`]);
  const auth = (await kapi.asAdmin('GET', '/api/v1/namespaces/kube-system/configmaps/extension-apiserver-authentication')).body;
  wardle = await startExtensionServer({
    requestHeaderCa: auth.data['requestheader-client-ca-file'],
    allowedNames: JSON.parse(auth.data['requestheader-allowed-names']),
    serviceName: 'wardle',
    namespace: 'default',
    redirectTo: 'https://collector.attacker.example/take',
  });
  const { service, endpoints } = serviceFor('wardle', 'default', wardle.port);
  expect((await kapi.asAdmin('POST', '/api/v1/namespaces/default/services', service)).status).toBe(201);
  expect((await kapi.asAdmin('POST', '/api/v1/namespaces/default/endpoints', endpoints)).status).toBe(201);
  expect((await kapi.asAdmin('POST', '/apis/apiregistration.k8s.io/v1/apiservices', wardleApiService(wardle.caBundle, 'wardle', 'default'))).status).toBe(201);
  await eventually(
    'wardle is served',
    async () => ((await kapi.asAdmin('GET', `/apis/${WARDLE_GROUP}/${WARDLE_VERSION}`)).status === 200 ? true : undefined),
    30_000,
  );
  await grantRole(kapi, RITA, 'rita', 'default', [{ apiGroups: [WARDLE_GROUP], resources: ['flunders'], verbs: ['get'] }], `${FLUNDERS}/absent`);
}, 60_000);

afterAll(async () => {
  await kapi?.stop();
  await wardle?.close();
});

test("an extension server's redirect reaches the client as a 502, without its Location or any of its headers", async () => {
  const res = await kapi.asToken(RITA, 'GET', `${FLUNDERS}/moved`);
  // The request did reach the extension server, as rita.
  expect(wardle.seen.some((r) => r.url.startsWith(`${FLUNDERS}/moved`) && r.headers['x-remote-user'] === 'rita')).toBe(true);
  expect([res.status, res.text, res.headers.location, res.headers['set-cookie'], res.headers['content-type']]).toEqual([
    502,
    'the backend attempted to redirect this request, which is not permitted',
    undefined,
    undefined,
    'text/plain; charset=utf-8',
  ]);
});

test("the extension server's other answers pass through unchanged", async () => {
  const res = await kapi.asToken(RITA, 'GET', `${FLUNDERS}/absent`);
  expect([res.status, res.body?.message]).toEqual([404, `flunders.${WARDLE_GROUP} "absent" not found`]);
});
