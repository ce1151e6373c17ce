import { testEtcdEndpoint } from '../harness/shared-etcd';
import { grantClusterRole, startSecureKapi, type SecureKapi } from '../harness/secure-process';

// nodes/proxy dials the address a Node reports, and a node reports its own addresses. A node (or
// whoever holds its credentials) that reports a name or a legacy IPv4 form of a loopback or
// link-local address must not turn a monitoring user's nodes/proxy into requests to the API
// server's own host (etcd's client port, say). kube's node strategy resolves the host and refuses
// any address that is not global unicast (isProxyableHostname): "address not allowed".

const MONA = 'mona-token-n0d3-pr0xy-t4rg3t';
let kapi: SecureKapi;
const etcdPort = new URL(testEtcdEndpoint()).port;

/** The Node `name` reporting `address` as its hostname. */
async function reportAddress(name: string, address: string): Promise<void> {
  const created = await kapi.asAdmin('POST', '/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name } });
  expect(created.status).toBe(201);
  const status = { status: { addresses: [{ type: 'Hostname', address }], daemonEndpoints: { kubeletEndpoint: { Port: 10250 } } } };
  const patched = await kapi.asAdmin('PATCH', `/api/v1/nodes/${name}/status`, status, { 'Content-Type': 'application/merge-patch+json' });
  expect(patched.status).toBe(200);
}

beforeAll(async () => {
  // Loopback is refused as in kube-apiserver (the harness turns it on for its test backends).
  kapi = await startSecureKapi([`${MONA},mona,uid-mona`], ['--allow-loopback-endpoints=false']);
  await grantClusterRole(kapi, MONA, 'mona', 'node-metrics-reader', [{ apiGroups: [''], resources: ['nodes/proxy', 'nodes'], verbs: ['get', 'list'] }], {
    method: 'GET',
    path: '/api/v1/nodes',
  });
}, 60_000);

afterAll(async () => {
  await kapi?.stop();
});

test.each([
  ['127.1', 'the short IPv4 form of 127.0.0.1'],
  ['2130706433', 'the decimal form of 127.0.0.1'],
  ['localhost', 'a name of the loopback address'],
  ['169.254.43518', 'the short form of the link-local metadata address 169.254.169.254'],
])('a node reporting %s (%s) is refused before anything is dialled', async (address) => {
  const name = `n-${address.replace(/[^0-9a-z]/g, '-')}`;
  await reportAddress(name, address);
  // etcd's client port on the API server's host, through the node's "address".
  const res = await kapi.asToken(MONA, 'GET', `/api/v1/nodes/http:${name}:${etcdPort}/proxy/version`);
  expect([res.status, res.body?.reason, res.body?.message]).toEqual([400, 'BadRequest', 'address not allowed']);
});

test('a name that does not resolve is a 400 too, as the failed lookup', async () => {
  await reportAddress('n-nowhere', 'nowhere.invalid');
  const res = await kapi.asToken(MONA, 'GET', '/api/v1/nodes/n-nowhere/proxy/metrics');
  expect([res.status, res.body?.reason, res.body?.message]).toEqual([400, 'BadRequest', 'lookup nowhere.invalid: no such host']);
});
