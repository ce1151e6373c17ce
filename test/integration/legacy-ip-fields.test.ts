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
const DEPRECATED = 'v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice';

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

/** The texts of a response's Warning headers (299 - "text", several joined by ", "). */
function warnings(res: { headers: Headers }): string[] {
  const header = res.headers.get('warning') ?? '';
  return [...header.matchAll(/299 - ("(?:[^"\\]|\\.)*")/g)].map((m) => JSON.parse(m[1]) as string);
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
    expect(warnings(labelled)).toEqual([DEPRECATED, 'subsets[0].addresses[0].ip: non-standard IP address "10.1.2.03" is invalid: use "10.1.2.3"']);
    const grown = await api.patch(path, { subsets: [{ ...subsets[0], addresses: [...subsets[0].addresses, { ip: '10.1.2.4' }] }] }, MERGE);
    expect(grown.status).toBe(422);
    expect(causes(grown.body)).toEqual(['FieldValueInvalid subsets[0].addresses[0].ip: Invalid value: "10.1.2.03": must not have leading 0s']);
  });

  test("GetWarningsForIP on create and update, except for the Endpoints controller's own", async () => {
    const ep = (name: string, labels: Record<string, string> = {}) => ({
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name, labels },
      subsets: [{ addresses: [{ ip: '10.1.2.3' }], notReadyAddresses: [{ ip: 'FD00:0:0::1' }] }],
    });
    const created = await api.post(ENDPOINTS, ep('warned'));
    expect(created.status).toBe(201);
    expect(warnings(created)).toEqual([
      DEPRECATED,
      'subsets[0].notReadyAddresses[0].ip: IPv6 address "FD00:0:0::1" should be in RFC 5952 canonical format ("fd00::1")',
    ]);
    expect(warnings(await api.patch(`${ENDPOINTS}/warned`, { metadata: { labels: { a: 'b' } } }, MERGE))).toHaveLength(2);
    const managed = await api.post(ENDPOINTS, ep('managed', { 'endpoints.kubernetes.io/managed-by': 'endpoint-controller' }));
    expect(managed.status).toBe(201);
    expect(warnings(managed)).toEqual([DEPRECATED]);
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

  test('warnings: FQDN deprecated on create, GetWarningsForIP unless a kube controller wrote the slice', async () => {
    const fqdn = await api.post(SLICES, slice('fqdn', 'FQDN', ['db.example.com']));
    expect(fqdn.status).toBe(201);
    expect(warnings(fqdn)).toEqual(['spec.addressType: FQDN endpoints are deprecated']);
    const v6 = await api.post(SLICES, slice('v6-long', 'IPv6', ['fd00:0::1']));
    expect(warnings(v6)).toEqual(['endpoints[0].addresses[0]: IPv6 address "fd00:0::1" should be in RFC 5952 canonical format ("fd00::1")']);
    const managed = {
      ...slice('v6-managed', 'IPv6', ['fd00:0::1']),
      metadata: { name: 'v6-managed', labels: { 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' } },
    };
    expect(warnings(await api.post(SLICES, managed))).toEqual([]);
  });

  test('stored invalid addresses may stay while the endpoints are unchanged, and only then', async () => {
    const path = `${SLICES}/old`;
    const stored = { ...slice('old', 'IPv4', ['10.0.0.010']), metadata: { ...meta('old', 'default'), generation: 1 } };
    stored.endpoints = [{ addresses: ['10.0.0.010'], conditions: {} } as never];
    await seed('endpointslices/default/old', path, stored);
    const labelled = await api.patch(path, { metadata: { labels: { a: 'b' } } }, MERGE);
    expect(labelled.status).toBe(200);
    expect(warnings(labelled)).toEqual(['endpoints[0].addresses[0]: non-standard IP address "10.0.0.010" is invalid: use "10.0.0.10"']);
    const grown = await api.patch(path, { endpoints: [{ addresses: ['10.0.0.010'] }, { addresses: ['10.0.0.11'] }] }, MERGE);
    expect(causes(grown.body)).toEqual(['FieldValueInvalid endpoints[0].addresses[0]: Invalid value: "10.0.0.010": must not have leading 0s']);
  });
});

describe('Pods', () => {
  const PODS = '/api/v1/namespaces/default/pods';
  const pod = (name: string, spec: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
  });

  test('dnsConfig nameservers and hostAliases: IsValidIPForLegacyField, in pods and pod templates', async () => {
    const res = await api.post(
      PODS,
      pod('dns', {
        dnsPolicy: 'None',
        dnsConfig: { nameservers: ['1.1.1.1', '::ffff:8.8.8.8', '8.8.4.4', '9.9.9.9'] },
        hostAliases: [{ ip: '10.0.0.01', hostnames: ['db', 'Bad_Host'] }, { ip: 'fd00::1' }],
      }),
    );
    expect(res.status).toBe(422);
    expect(causes(res.body)).toEqual([
      'FieldValueInvalid spec.dnsConfig.nameservers: Invalid value: ["1.1.1.1","::ffff:8.8.8.8","8.8.4.4","9.9.9.9"]: must not have more than 3 nameservers',
      'FieldValueInvalid spec.dnsConfig.nameservers[1]: Invalid value: "::ffff:8.8.8.8": must not be an IPv4-mapped IPv6 address',
      'FieldValueInvalid spec.hostAliases[0].ip: Invalid value: "10.0.0.01": must not have leading 0s',
      expect.stringMatching(/^FieldValueInvalid spec\.hostAliases\[0\]\.hostnames\[1\]: Invalid value: "Bad_Host": a lowercase RFC 1123 subdomain/),
    ]);
    const searches = await api.post(
      PODS,
      pod('searches', { dnsConfig: { nameservers: ['1.1.1.1'], searches: ['_srv.example.com.', 'Bad.Example.', '.'], options: [{ value: '2' }] } }),
    );
    expect(causes(searches.body)).toEqual([
      "FieldValueInvalid spec.dnsConfig.searches[1]: Invalid value: \"Bad.Example\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\\._?[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*')",
      'FieldValueRequired spec.dnsConfig.options[0]: Required value: must not be empty',
    ]);
    const none = await api.post(PODS, pod('none', { dnsPolicy: 'None' }));
    expect(causes(none.body)).toEqual(['FieldValueRequired spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None']);
    const template = await api.post('/apis/apps/v1/namespaces/default/deployments', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'dns' },
      spec: {
        selector: { matchLabels: { app: 'dns' } },
        template: { metadata: { labels: { app: 'dns' } }, spec: { containers: [{ name: 'c', image: 'nginx' }], hostAliases: [{ ip: 'nope' }] } },
      },
    });
    expect(causes(template.body)).toEqual([
      'FieldValueInvalid spec.template.spec.hostAliases[0].ip: Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    ]);
  });

  test('status IPs: each valid, one per family, no duplicates; podIP alone stands for podIPs', async () => {
    const created = await api.post(PODS, pod('status'));
    expect(created.status).toBe(201);
    // Unconditional writes: nothing here depends on what else may write the pod meanwhile.
    const { resourceVersion: _rv, ...metadata } = created.body.metadata;
    const write = (status: Record<string, unknown>) => api.put(`${PODS}/status/status`, { ...created.body, metadata, status });
    const bad = await write({
      podIPs: [{ ip: '10.0.0.1' }, { ip: '10.0.0.01' }, { ip: '10.0.0.1' }],
      hostIP: '192.168.0.1',
      hostIPs: [{ ip: '192.168.0.1' }, { ip: 'nope' }],
    });
    expect(causes(bad.body)).toEqual([
      'FieldValueInvalid status.podIPs[1]: Invalid value: "10.0.0.01": must not have leading 0s',
      'FieldValueInvalid status.podIPs: Invalid value: [{"IP":"10.0.0.1"},{"IP":"10.0.0.01"},{"IP":"10.0.0.1"}]: may specify no more than one IP for each IP family',
      'FieldValueDuplicate status.podIPs[2]: Duplicate value: {"IP":"10.0.0.1"}',
      'FieldValueInvalid status.hostIPs[1]: Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
      'InternalError status.hostIPs: Internal error: failed to check for dual stack with error:ip at index 1 is invalid',
      'FieldValueInvalid status.hostIPs: Invalid value: [{"IP":"192.168.0.1"},{"IP":"nope"}]: may specify no more than one IP for each IP family',
    ]);
    const single = await write({ podIP: '::ffff:10.0.0.1', hostIPs: [{ ip: '192.168.0.1' }] });
    expect(causes(single.body)).toEqual([
      'FieldValueInvalid status.podIPs[0]: Invalid value: "::ffff:10.0.0.1": must not be an IPv4-mapped IPv6 address',
      'FieldValueInvalid status.hostIPs[0].ip: Invalid value: "192.168.0.1": must be equal to `hostIP`',
    ]);
    expect((await write({ podIP: '10.0.0.1', podIPs: [{ ip: '10.0.0.1' }, { ip: 'fd00::1' }], hostIP: '192.168.0.1' })).status).toBe(200);
    const long = await write({ podIPs: [{ ip: '10.0.0.1' }, { ip: 'FD00::1' }], hostIP: '192.168.0.1' });
    expect(long.status).toBe(200);
    expect(warnings(long)).toEqual(['status.podIPs[1].ip: IPv6 address "FD00::1" should be in RFC 5952 canonical format ("fd00::1")']);
  });

  test("a stored pod's invalid status IPs may stay; new ones may not", async () => {
    const path = `${PODS}/old`;
    const status = { phase: 'Pending', podIP: '10.0.0.01', podIPs: [{ ip: '10.0.0.01' }], hostIP: '192.168.0.01', hostIPs: [{ ip: '192.168.0.01' }] };
    const stored = { ...pod('old'), metadata: meta('old', 'default'), status };
    await seed('pods/default/old', path, stored);
    const current = (await api.get(path)).body;
    const unconditional = { ...current, metadata: { ...current.metadata, resourceVersion: undefined } };
    expect((await api.put(`${path}/status`, { ...unconditional, status: { ...status, phase: 'Running' } })).status).toBe(200);
    const added = await api.put(`${path}/status`, {
      ...unconditional,
      status: { ...status, podIPs: [...status.podIPs, { ip: 'fd00::01:1' }, { ip: '::ffff:1.2.3.4' }] },
    });
    expect(causes(added.body)).toEqual([
      'FieldValueInvalid status.podIPs[2]: Invalid value: "::ffff:1.2.3.4": must not be an IPv4-mapped IPv6 address',
      'FieldValueInvalid status.podIPs: Invalid value: [{"IP":"10.0.0.01"},{"IP":"fd00::01:1"},{"IP":"::ffff:1.2.3.4"}]: may specify no more than one IP for each IP family',
    ]);
  });
});

describe('Nodes', () => {
  const NODES = '/api/v1/nodes';
  const node = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name }, spec });

  test('podCIDRs: each IsValidCIDRForLegacyField, then one per family and no duplicates; podCIDR alone stands for them', async () => {
    const bad = await api.post(NODES, node('cidrs', { podCIDRs: ['10.244.0.0/24', '10.244.1.1/24', 'nope', '10.244.0.0/24'] }));
    expect(bad.status).toBe(422);
    expect(causes(bad.body)).toEqual([
      'FieldValueInvalid spec.podCIDRs[1]: Invalid value: "10.244.1.1/24": must not have bits set beyond the prefix length',
      'FieldValueInvalid spec.podCIDRs[2]: Invalid value: "nope": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
      'InternalError spec.podCIDRs: Internal error: invalid PodCIDRs. failed to check with dual stack with error:invalid CIDR[2]: <nil> (invalid CIDR address: nope)',
      'FieldValueInvalid spec.podCIDRs: Invalid value: ["10.244.0.0/24","10.244.1.1/24","nope","10.244.0.0/24"]: may specify no more than one CIDR for each IP family',
      'FieldValueDuplicate spec.podCIDRs[3]: Duplicate value: "10.244.0.0/24"',
    ]);
    const single = await api.post(NODES, node('single', { podCIDR: '10.244.01.0/24' }));
    expect(causes(single.body)).toEqual([
      'FieldValueInvalid spec.podCIDRs[0]: Invalid value: "10.244.01.0/24": must not have leading 0s in IP or prefix length',
    ]);
    expect((await api.post(NODES, node('dual', { podCIDR: '10.244.2.0/24', podCIDRs: ['10.244.2.0/24', 'fd00:10:244:2::/64'] }))).status).toBe(201);
    const moved = await api.patch(`${NODES}/dual`, { spec: { podCIDRs: ['10.244.3.0/24', 'fd00:10:244:2::/64'], podCIDR: '10.244.3.0/24' } }, MERGE);
    expect(causes(moved.body)).toEqual(['FieldValueForbidden spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid']);
  });

  test("a stored node's invalid podCIDRs may stay", async () => {
    const path = `${NODES}/old`;
    await seed('minions/old', path, { ...node('old', { podCIDR: '10.244.1.1/24', podCIDRs: ['10.244.1.1/24'] }), metadata: meta('old') });
    expect((await api.patch(path, { metadata: { labels: { a: 'b' } } }, MERGE)).status).toBe(200);
  });
});

test("a node's status addresses: not validated as IPs, only never twice (ValidateNodeUpdate)", async () => {
  const created = await api.post('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'addresses' } });
  expect(created.status).toBe(201);
  // Without a resourceVersion (nodes allow unconditional updates): the node lifecycle controller may write the node meanwhile.
  const { resourceVersion: _rv, ...metadata } = created.body.metadata;
  const write = (addresses: { type: string; address: string }[]) =>
    api.put('/api/v1/nodes/addresses/status', { ...created.body, metadata, status: { addresses } });
  const dup = await write([
    { type: 'InternalIP', address: '10.0.0.1' },
    { type: 'ExternalIP', address: '10.0.0.1' },
    { type: 'InternalIP', address: '10.0.0.1' },
  ]);
  expect(causes(dup.body)).toEqual(['FieldValueDuplicate status.addresses[2]: Duplicate value: {"Type":"InternalIP","Address":"10.0.0.1"}']);
  expect((await write([{ type: 'InternalIP', address: '10.0.0.01' }])).status).toBe(200);
});
