import { causes } from '../harness/causes';
import { eventually, RawEtcd } from '../harness/etcd-keys';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

// The legacy IP and CIDR fields of Endpoints, EndpointSlices, Pods and Nodes as kube-apiserver 1.36
// reads them with StrictIPCIDRValidation on (its beta default): no leading zeros, no IPv4-mapped
// IPv6 address, no bits past a CIDR's prefix; what an object already had may stay, as each kind's
// update validation allows.

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
let etcd: RawEtcd;
const ENDPOINTS = '/api/v1/namespaces/default/endpoints';
const SLICES = '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices';
const MERGE = 'application/merge-patch+json';

beforeAll(async () => {
  server = await startTestServer();
  api = new Api(server.url);
  etcd = new RawEtcd();
});

afterAll(async () => {
  etcd.close();
  await server.close();
});

/** Stores `obj` past kapi's validation, as an older kube-apiserver could have, and waits until kapi serves it. */
async function seed(key: string, path: string, obj: Record<string, unknown>): Promise<void> {
  await etcd.put(`${server.prefix}/${key}`, JSON.stringify(obj));
  await eventually(`${path} in the cache`, async () => ((await api.get(`${path}?resourceVersion=0`)).status === 200 ? true : undefined));
}

const meta = (name: string, namespace?: string) => ({ name, ...(namespace ? { namespace } : {}), uid: `u-${name}`, creationTimestamp: '2024-01-01T00:00:00Z' });

describe('Endpoints', () => {
  test('addresses: IsValidIPForLegacyField, the hostname and node name, then ValidateEndpointIP', async () => {
    const res = await api.post(ENDPOINTS, {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'strict' },
      subsets: [
        {
          addresses: [{ ip: 'nope', hostname: 'Bad_Host', nodeName: 'Bad_Node' }, { ip: '10.1.2.03' }],
          notReadyAddresses: [{ ip: '::ffff:169.254.1.1' }],
        },
      ],
    });
    expect(res.status).toBe(422);
    expect(causes(res.body)).toEqual([
      'FieldValueInvalid subsets[0].addresses[0].ip: Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      expect.stringMatching(/^FieldValueInvalid subsets\[0\]\.addresses\[0\]\.hostname: Invalid value: "Bad_Host": a lowercase RFC 1123 label/),
      expect.stringMatching(/^FieldValueInvalid subsets\[0\]\.addresses\[0\]\.nodeName: Invalid value: "Bad_Node": a lowercase RFC 1123 subdomain/),
      'FieldValueInvalid subsets[0].addresses[0].ip: Invalid value: "nope": must be a valid IP address',
      'FieldValueInvalid subsets[0].addresses[1].ip: Invalid value: "10.1.2.03": must not have leading 0s',
      'FieldValueInvalid subsets[0].notReadyAddresses[0].ip: Invalid value: "::ffff:169.254.1.1": must not be an IPv4-mapped IPv6 address',
      'FieldValueInvalid subsets[0].notReadyAddresses[0].ip: Invalid value: "::ffff:169.254.1.1": may not be in the link-local range (169.254.0.0/16, fe80::/10)',
    ]);
  });

  test('stored invalid IPs may stay while the subsets are unchanged, and only then', async () => {
    const path = `${ENDPOINTS}/old`;
    const subsets = [{ addresses: [{ ip: '10.1.2.03' }], ports: [{ port: 80, protocol: 'TCP' }] }];
    await seed('services/endpoints/default/old', path, { apiVersion: 'v1', kind: 'Endpoints', metadata: meta('old', 'default'), subsets });
    const labelled = await api.patch(path, { metadata: { labels: { a: 'b' } } }, MERGE);
    expect(labelled.status).toBe(200);
    const grown = await api.patch(path, { subsets: [{ ...subsets[0], addresses: [...subsets[0].addresses, { ip: '10.1.2.4' }] }] }, MERGE);
    expect(grown.status).toBe(422);
    expect(causes(grown.body)).toEqual(['FieldValueInvalid subsets[0].addresses[0].ip: Invalid value: "10.1.2.03": must not have leading 0s']);
  });
});

describe('EndpointSlices', () => {
  const slice = (name: string, addressType: string, addresses: string[]) => ({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name },
    addressType,
    endpoints: addresses.map((a) => ({ addresses: [a] })),
  });

  test('an address is named once: IsValidIPForLegacyField, else its family and ValidateEndpointIP', async () => {
    const v4 = await api.post(SLICES, slice('v4', 'IPv4', ['nope', '10.0.0.010', 'fd00::1', '169.254.0.1']));
    expect(causes(v4.body)).toEqual([
      'FieldValueInvalid endpoints[0].addresses[0]: Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      'FieldValueInvalid endpoints[1].addresses[0]: Invalid value: "10.0.0.010": must not have leading 0s',
      'FieldValueInvalid endpoints[2].addresses[0]: Invalid value: "fd00::1": must be an IPv4 address',
      'FieldValueInvalid endpoints[3].addresses[0]: Invalid value: "169.254.0.1": may not be in the link-local range (169.254.0.0/16, fe80::/10)',
    ]);
    const v6 = await api.post(SLICES, slice('v6', 'IPv6', ['::ffff:10.0.0.1', '10.0.0.1']));
    expect(causes(v6.body)).toEqual([
      'FieldValueInvalid endpoints[0].addresses[0]: Invalid value: "::ffff:10.0.0.1": must not be an IPv4-mapped IPv6 address',
      'FieldValueInvalid endpoints[1].addresses[0]: Invalid value: "10.0.0.1": must be an IPv6 address',
    ]);
  });

  test('stored invalid addresses may stay while the endpoints are unchanged, and only then', async () => {
    const path = `${SLICES}/old`;
    const stored = { ...slice('old', 'IPv4', ['10.0.0.010']), metadata: { ...meta('old', 'default'), generation: 1 } };
    stored.endpoints = [{ addresses: ['10.0.0.010'], conditions: {} } as never];
    await seed('endpointslices/default/old', path, stored);
    expect((await api.patch(path, { metadata: { labels: { a: 'b' } } }, MERGE)).status).toBe(200);
    const grown = await api.patch(path, { endpoints: [{ addresses: ['10.0.0.010'] }, { addresses: ['10.0.0.11'] }] }, MERGE);
    expect(causes(grown.body)).toEqual(['FieldValueInvalid endpoints[0].addresses[0]: Invalid value: "10.0.0.010": must not have leading 0s']);
  });
});
