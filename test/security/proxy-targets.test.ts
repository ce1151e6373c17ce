import { testEtcdEndpoint } from '../harness/shared-etcd';
import { grantClusterRole, startSecureKapi, type SecureKapi } from '../harness/secure-process';

// The proxy subresources dial addresses that others report: a Node's (written by its kubelet), a
// Pod's IP (written by the kubelet too), a Service's Endpoints. A name, a legacy IPv4 form or an
// IPv4-mapped IPv6 form of a loopback or link-local address must not turn a user's proxy request
// into a request to the API server's own host (etcd's client port, say). kube refuses any address
// that is not global unicast as Go reads it: nodes/proxy resolves the host first
// (isProxyableHostname), pods/proxy checks the IP (isProxyableIP), and Endpoints refuse such
// addresses when written (ValidateEndpointIP).

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
  await grantClusterRole(
    kapi,
    MONA,
    'mona',
    'node-metrics-reader',
    [
      { apiGroups: [''], resources: ['nodes/proxy', 'nodes'], verbs: ['get', 'list'] },
      { apiGroups: [''], resources: ['pods/proxy'], verbs: ['get'] },
      { apiGroups: [''], resources: ['endpoints'], verbs: ['create'] },
    ],
    {
      method: 'GET',
      path: '/api/v1/nodes',
    },
  );
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

describe('an IPv4-mapped IPv6 address is the IPv4 address, as Go reads it', () => {
  // With StrictIPCIDRValidation (on in 1.36) a pod's status cannot take such an address at all; pods/proxy
  // also reads one as its IPv4 address (isProxyableIP), for values stored before: registry/proxy/addresses.test.ts.
  test.each(['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:169.254.169.254'])('a pod cannot report %s, so pods/proxy never dials it', async (ip) => {
    const name = `p-${ip.replace(/[^0-9a-f]/g, '-')}`;
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { nodeName: 'n-127-1', containers: [{ name: 'c', image: 'x' }] } };
    expect((await kapi.asAdmin('POST', '/api/v1/namespaces/default/pods', pod)).status).toBe(201);
    const status = { status: { podIP: ip, podIPs: [{ ip }] } };
    const patched = await kapi.asAdmin('PATCH', `/api/v1/namespaces/default/pods/${name}/status`, status, { 'Content-Type': 'application/merge-patch+json' });
    expect([patched.status, patched.body?.reason]).toEqual([422, 'Invalid']);
    expect(patched.body?.message).toContain('must not be an IPv4-mapped IPv6 address');
    const res = await kapi.asToken(MONA, 'GET', `/api/v1/namespaces/default/pods/http:${name}:${etcdPort}/proxy/version`);
    expect([res.status, res.body?.reason, res.body?.message]).toEqual([400, 'BadRequest', 'address not allowed']);
  });

  test('Endpoints refuse ::ffff:127.0.0.1 as loopback, so services/proxy never dials it', async () => {
    const endpoints = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'etcd' },
      subsets: [{ addresses: [{ ip: '::ffff:127.0.0.1' }], ports: [{ port: Number(etcdPort) }] }],
    };
    const res = await kapi.asToken(MONA, 'POST', '/api/v1/namespaces/default/endpoints', endpoints);
    expect([res.status, res.body?.details?.causes]).toEqual([
      422,
      [
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: "::ffff:127.0.0.1": must not be an IPv4-mapped IPv6 address',
          field: 'subsets[0].addresses[0].ip',
        },
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: "::ffff:127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
          field: 'subsets[0].addresses[0].ip',
        },
      ],
    ]);
  });
});
