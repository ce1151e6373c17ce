import { decodeProtobuf } from '../../src/codec/protobuf';
import { causes } from '../harness/causes';
import { eventually, RawEtcd } from '../harness/etcd-keys';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

// Service allocation as kube 1.33+ does it: cluster IPs are IPAddress objects in the ranges of
// the ServiceCIDRs (the default one, `kubernetes`, from --service-cluster-ip-range), node ports a
// bitmap in etcd; duplicates and values out of range are kube's 422s; values come back on delete
// and type change; the repair controllers put back what disappears; default/kubernetes points at
// the server.

type Server = Awaited<ReturnType<typeof startTestServer>>;
let single: Server;
let dual: Server;
let api: Api;
const raw = new RawEtcd();
const SVCS = '/api/v1/namespaces/default/services';
const IPS = '/apis/networking.k8s.io/v1/ipaddresses';
const CIDRS = '/apis/networking.k8s.io/v1/servicecidrs';

const svc = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name },
  spec: { selector: { app: name }, ports: [{ port: 80 }], ...spec },
});

beforeAll(async () => {
  [single, dual] = await Promise.all([
    startTestServer({ serviceClusterIpRange: ['10.96.0.0/12'], serviceNodePortRange: { base: 30000, size: 2768 }, serviceRepairIntervalMs: 300 }),
    startTestServer({ serviceClusterIpRange: ['10.0.0.0/28', 'fd00:10::/120'], serviceNodePortRange: { base: 31000, size: 4 } }),
  ]);
  api = new Api(single.url);
});

afterAll(async () => {
  await Promise.all([single?.close(), dual?.close()]);
  raw.close();
});

test('the default ServiceCIDR holds --service-cluster-ip-range and is Ready', async () => {
  const res = await api.get(`${CIDRS}/kubernetes`);
  expect(res.status).toBe(200);
  expect(res.body.spec.cidrs).toEqual(['10.96.0.0/12']);
  const ready = await eventually('Ready', async () => {
    const r = await api.get(`${CIDRS}/kubernetes`);
    return r.body.status?.conditions?.find((c: { type: string }) => c.type === 'Ready');
  });
  expect(ready).toMatchObject({ status: 'True', message: 'Kubernetes default Service CIDR is ready' });
  const dualCidr = await new Api(dual.url).get(`${CIDRS}/kubernetes`);
  expect(dualCidr.body.spec.cidrs).toEqual(['10.0.0.0/28', 'fd00:10::/120']);
});

test('a new Service gets a free IP of the range, held by an IPAddress that names it', async () => {
  const res = await api.post(SVCS, svc('alpha'));
  expect(res.status).toBe(201);
  const ip = res.body.spec.clusterIP as string;
  expect(res.body.spec.clusterIPs).toEqual([ip]);
  expect(res.body.spec.ipFamilies).toEqual(['IPv4']);
  expect(res.body.spec.ipFamilyPolicy).toBe('SingleStack');
  expect(ip).toMatch(/^10\.(9[6-9]|10[0-9]|11[01])\./);
  const address = await api.get(`${IPS}/${ip}`);
  expect(address.status).toBe(200);
  expect(address.body.spec.parentRef).toEqual({ resource: 'services', namespace: 'default', name: 'alpha' });
  expect(address.body.metadata.labels).toEqual({ 'ipaddress.kubernetes.io/ip-family': 'IPv4', 'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io' });
});

test("a clusterIP already taken is refused with kube's 422; one out of range too", async () => {
  expect((await api.post(SVCS, svc('first', { clusterIP: '10.96.0.10' }))).status).toBe(201);
  const taken = await api.post(SVCS, svc('second', { clusterIP: '10.96.0.10' }));
  expect(taken.status).toBe(422);
  expect(taken.body.message).toBe(
    'Service "second" is invalid: spec.clusterIPs: Invalid value: ["10.96.0.10"]: failed to allocate IP 10.96.0.10: provided IP is already allocated',
  );
  expect(causes(taken.body)).toEqual([
    'FieldValueInvalid spec.clusterIPs: Invalid value: ["10.96.0.10"]: failed to allocate IP 10.96.0.10: provided IP is already allocated',
  ]);
  const outside = await api.post(SVCS, svc('third', { clusterIP: '192.168.1.1' }));
  expect(outside.status).toBe(422);
  expect(outside.body.message).toBe(
    'Service "third" is invalid: spec.clusterIPs: Invalid value: ["192.168.1.1"]: failed to allocate IP 192.168.1.1: the provided network does not match the current range',
  );
  // Nothing was taken for the refused ones.
  expect((await api.get(`${SVCS}/second`)).status).toBe(404);
  expect((await api.get(`${IPS}/192.168.1.1`)).status).toBe(404);
});

test('a dry run allocates nothing', async () => {
  const res = await api.post(`${SVCS}?dryRun=All`, svc('dry', { clusterIP: '10.96.0.20', type: 'NodePort', ports: [{ port: 80, nodePort: 30020 }] }));
  expect(res.status).toBe(201);
  expect(res.body.spec.clusterIP).toBe('10.96.0.20');
  expect((await api.get(`${IPS}/10.96.0.20`)).status).toBe(404);
  // Both are still free for a real create.
  expect((await api.post(SVCS, svc('wet', { clusterIP: '10.96.0.20', type: 'NodePort', ports: [{ port: 80, nodePort: 30020 }] }))).status).toBe(201);
});

test('delete releases the IP and node port for reuse; a change to ExternalName releases them too', async () => {
  const spec = { clusterIP: '10.96.0.30', type: 'NodePort', ports: [{ port: 80, nodePort: 30030 }] };
  expect((await api.post(SVCS, svc('reused', spec))).status).toBe(201);
  expect((await api.post(SVCS, svc('blocked', spec))).status).toBe(422);
  expect((await api.delete(`${SVCS}/reused`)).status).toBe(200);
  expect((await api.get(`${IPS}/10.96.0.30`)).status).toBe(404);
  const again = await api.post(SVCS, svc('reuser', spec));
  expect(again.status).toBe(201);
  expect(again.body.spec.ports[0].nodePort).toBe(30030);

  const patched = await api.patch(`${SVCS}/reuser`, { spec: { type: 'ExternalName', externalName: 'example.com' } }, 'application/merge-patch+json');
  expect(patched.status).toBe(200);
  expect(patched.body.spec.clusterIP).toBeUndefined();
  expect(patched.body.spec.ports[0].nodePort).toBeUndefined();
  expect((await api.get(`${IPS}/10.96.0.30`)).status).toBe(404);
  expect((await api.post(SVCS, svc('after-external', spec))).status).toBe(201);
});

test("NodePorts: a free one is given, a duplicate and an out-of-range one are kube's 422s, a taken health check port its 500", async () => {
  const res = await api.post(SVCS, svc('np', { type: 'NodePort' }));
  expect(res.status).toBe(201);
  const port = res.body.spec.ports[0].nodePort as number;
  expect(port).toBeGreaterThanOrEqual(30000);
  expect(port).toBeLessThanOrEqual(32767);
  const dup = await api.post(SVCS, svc('np-dup', { type: 'NodePort', ports: [{ port: 80, nodePort: port }] }));
  expect(dup.status).toBe(422);
  expect(causes(dup.body)).toEqual([`FieldValueInvalid spec.ports[0].nodePort: Invalid value: ${port}: provided port is already allocated`]);
  const out = await api.post(SVCS, svc('np-out', { type: 'NodePort', ports: [{ port: 80, nodePort: 8080 }] }));
  expect(out.status).toBe(422);
  expect(out.body.message).toBe(
    'Service "np-out" is invalid: spec.ports[0].nodePort: Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767',
  );
  // One port number over two protocols gets one node port.
  const dns = await api.post(
    SVCS,
    svc('dns', {
      type: 'NodePort',
      ports: [
        { name: 'udp', port: 53, protocol: 'UDP' },
        { name: 'tcp', port: 53, protocol: 'TCP' },
      ],
    }),
  );
  expect(dns.status).toBe(201);
  expect(dns.body.spec.ports[0].nodePort).toBe(dns.body.spec.ports[1].nodePort);
  // A LoadBalancer with externalTrafficPolicy Local also gets a health check node port, never one already taken.
  const lb = await api.post(SVCS, svc('lb', { type: 'LoadBalancer', externalTrafficPolicy: 'Local' }));
  expect(lb.status).toBe(201);
  const hc = lb.body.spec.healthCheckNodePort as number;
  expect(hc).toBeGreaterThanOrEqual(30000);
  expect(hc).not.toBe(lb.body.spec.ports[0].nodePort);
  // A health check node port that is taken is kube's 500 (allocHealthCheckNodePort's error is wrapped as an internal one).
  const hcDup = await api.post(SVCS, svc('lb-dup', { type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: hc }));
  expect(hcDup.status).toBe(500);
  expect(hcDup.body.message).toBe(`Internal error occurred: failed to allocate requested HealthCheck NodePort ${hc}: provided port is already allocated`);
});

test('dual stack: ipFamilyPolicy as kube defaults it; RequireDualStack refused on a single-stack cluster', async () => {
  const d = new Api(dual.url);
  const singleStack = await d.post(SVCS, svc('single'));
  expect(singleStack.body.spec.ipFamilies).toEqual(['IPv4']);
  expect(singleStack.body.spec.clusterIPs).toHaveLength(1);
  const prefer = await d.post(SVCS, svc('prefer', { ipFamilyPolicy: 'PreferDualStack' }));
  expect(prefer.status).toBe(201);
  expect(prefer.body.spec.ipFamilies).toEqual(['IPv4', 'IPv6']);
  const [v4, v6] = prefer.body.spec.clusterIPs as string[];
  expect(v4).toMatch(/^10\.0\.0\.([1-9]|1[0-4])$/);
  expect(v6).toMatch(/^fd00:10::[0-9a-f]+$/);
  expect((await d.get(`${IPS}/${v6}`)).body.metadata.labels['ipaddress.kubernetes.io/ip-family']).toBe('IPv6');
  const v6First = await d.post(SVCS, svc('v6first', { ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv6', 'IPv4'] }));
  expect(v6First.body.spec.clusterIPs[0]).toMatch(/^fd00:10::/);
  expect(v6First.body.spec.clusterIPs[1]).toMatch(/^10\.0\.0\./);
  // Dropping the secondary IP needs SingleStack.
  const reduced = await d.patch(`${SVCS}/prefer`, { spec: { clusterIPs: [v4] } }, 'application/merge-patch+json');
  expect(reduced.status).toBe(422);
  expect(causes(reduced.body)).toEqual([
    `FieldValueInvalid spec.ipFamilyPolicy: Invalid value: "PreferDualStack": must be 'SingleStack' to release the secondary cluster IP`,
  ]);
  // Downgraded to SingleStack, the secondary IP is released.
  const down = await d.patch(`${SVCS}/prefer`, { spec: { ipFamilyPolicy: 'SingleStack' } }, 'application/strategic-merge-patch+json');
  expect(down.status).toBe(200);
  expect(down.body.spec.clusterIPs).toEqual([v4]);
  expect((await d.get(`${IPS}/${v6}`)).status).toBe(404);

  const required = await api.post(SVCS, svc('required', { ipFamilyPolicy: 'RequireDualStack' }));
  expect(required.status).toBe(422);
  expect(causes(required.body)).toEqual([
    'FieldValueInvalid spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services',
  ]);
  const v6only = await api.post(SVCS, svc('v6only', { ipFamilies: ['IPv6'] }));
  expect(causes(v6only.body)).toEqual(['FieldValueInvalid spec.ipFamilies[0]: Invalid value: "IPv6": not configured on this cluster']);
});

test('a full range is a 500 "range is full"; node ports likewise; a freed value can be taken again', async () => {
  const d = new Api(dual.url);
  // The dual-stack server's node port range is 31000-31003.
  const ports: number[] = [];
  for (let i = 0; i < 4; i++) {
    const res = await d.post(SVCS, svc(`np-${i}`, { type: 'NodePort' }));
    expect(res.status).toBe(201);
    ports.push(res.body.spec.ports[0].nodePort);
  }
  expect([...ports].sort()).toEqual([31000, 31001, 31002, 31003]);
  const full = await d.post(SVCS, svc('np-full', { type: 'NodePort' }));
  expect(full.status).toBe(500);
  expect(full.body.message).toBe('Internal error occurred: failed to allocate a nodePort: range is full');
  expect((await d.get(`${SVCS}/np-full`)).status).toBe(404);
  // 10.0.0.0/28 has 14 usable addresses; 10.0.0.1 is the kubernetes Service's; earlier tests took some.
  const made: string[] = [];
  for (let i = 0; ; i++) {
    const res = await d.post(SVCS, svc(`fill-${i}`));
    if (res.status !== 201) {
      expect(res.status).toBe(500);
      expect(res.body.message).toBe('Internal error occurred: failed to allocate a serviceIP: range is full');
      break;
    }
    made.push(res.body.spec.clusterIP);
    expect(i).toBeLessThan(14);
  }
  expect(new Set(made).size).toBe(made.length);
  expect((await d.delete(`${SVCS}/fill-0`)).status).toBe(200);
  expect((await d.post(SVCS, svc('refill'))).body.spec.clusterIP).toBe(made[0]);
});

test("repair: an IPAddress deleted behind kapi's back comes back; one no Service holds goes", async () => {
  const res = await api.post(SVCS, svc('repaired'));
  const ip = res.body.spec.clusterIP as string;
  await raw.delete(`${single.prefix}/ipaddresses/${ip}`);
  const back = await eventually('the IPAddress recreated', async () => {
    const r = await api.get(`${IPS}/${ip}`);
    return r.status === 200 ? r.body : undefined;
  });
  expect(back.spec.parentRef.name).toBe('repaired');
  // An orphan: an IPAddress of the allocator for a Service that does not exist.
  const orphan = await api.post(IPS, {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IPAddress',
    metadata: { name: '10.96.5.5', labels: { 'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io' } },
    spec: { parentRef: { resource: 'services', namespace: 'default', name: 'ghost' } },
  });
  expect(orphan.status).toBe(201);
  await eventually('the orphan IPAddress deleted', async () => ((await api.get(`${IPS}/10.96.5.5`)).status === 404 ? true : undefined));
});

test('repair: a node port taken in the bitmap by no Service is freed; one a Service holds is put back', async () => {
  const res = await api.post(SVCS, svc('bitmap', { type: 'NodePort', ports: [{ port: 80, nodePort: 30444 }] }));
  expect(res.status).toBe(201);
  // Clear the bitmap behind kapi's back: the repair marks 30444 taken again.
  await raw.delete(`${single.prefix}/services/nodeports`);
  await eventually('30444 marked again', async () => {
    const r = await api.post(`${SVCS}?dryRun=All`, svc('probe', { type: 'NodePort', ports: [{ port: 80, nodePort: 30444 }] }));
    return r.status === 422 ? true : undefined;
  });
  // The Service removed behind kapi's back: its port leaks, and the repair frees it after a few passes.
  await raw.delete(`${single.prefix}/services/specs/default/bitmap`);
  await eventually('30444 freed', async () => {
    const r = await api.post(`${SVCS}?dryRun=All`, svc('probe', { type: 'NodePort', ports: [{ port: 80, nodePort: 30444 }] }));
    return r.status === 201 ? true : undefined;
  });
});

test('ServiceCIDRs and IPAddresses are served in protobuf too (what informers ask for)', async () => {
  const get = async (path: string) =>
    Buffer.from(await (await fetch(`${single.url}${path}`, { headers: { Accept: 'application/vnd.kubernetes.protobuf' } })).arrayBuffer());
  const cidr = decodeProtobuf(await get(`${CIDRS}/kubernetes`)) as unknown as { spec: { cidrs: string[] }; status: { conditions: { type: string }[] } };
  expect(cidr.spec.cidrs).toEqual(['10.96.0.0/12']);
  expect(cidr.status.conditions.map((c) => c.type)).toEqual(['Ready']);
  const ip = decodeProtobuf(await get(`${IPS}/10.96.0.1`)) as unknown as { spec: { parentRef: { resource: string; name: string } } };
  expect(ip.spec.parentRef).toMatchObject({ resource: 'services', name: 'kubernetes' });
});

test('IPAddress and ServiceCIDR validation', async () => {
  const bad = await api.post(IPS, { apiVersion: 'networking.k8s.io/v1', kind: 'IPAddress', metadata: { name: '10.256.0.1' }, spec: {} });
  expect(bad.status).toBe(422);
  expect(causes(bad.body)).toEqual([
    'FieldValueInvalid metadata.name: Invalid value: "10.256.0.1": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    'FieldValueRequired spec.parentRef: Required value',
  ]);
  const v6 = await api.post(IPS, {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IPAddress',
    metadata: { name: 'FD00::1' },
    spec: { parentRef: { resource: 'services', name: 'x' } },
  });
  expect(causes(v6.body)).toEqual(['FieldValueInvalid metadata.name: Invalid value: "FD00::1": must be in canonical form ("fd00::1")']);
  const made = await api.post(IPS, {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IPAddress',
    metadata: { name: '192.168.9.9' },
    spec: { parentRef: { resource: 'gateways', group: 'example.com', name: 'gw' } },
  });
  expect(made.status).toBe(201);
  const moved = await api.put(`${IPS}/192.168.9.9`, { ...made.body, spec: { parentRef: { resource: 'gateways', group: 'example.com', name: 'other' } } });
  expect(moved.status).toBe(422);
  expect(causes(moved.body)).toEqual([
    'FieldValueInvalid spec.parentRef: Invalid value: {"Group":"example.com","Resource":"gateways","Namespace":"","Name":"other"}: field is immutable',
  ]);

  const three = await api.post(CIDRS, {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'ServiceCIDR',
    metadata: { name: 'three' },
    spec: { cidrs: ['10.1.0.0/16', '10.2.0.0/16'] },
  });
  expect(causes(three.body)).toEqual([
    'FieldValueInvalid spec.cidrs: Invalid value: ["10.1.0.0/16","10.2.0.0/16"]: may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64',
  ]);
  const none = await api.post(CIDRS, { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name: 'none' }, spec: {} });
  expect(causes(none.body)).toEqual(['FieldValueRequired spec.cidrs: Required value: at least one CIDR required']);
  const cidr = (name: string, cidrs: string[]) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs } });
  const many = await api.post(CIDRS, cidr('many', ['10.1.0.0/16', 'fd00:1::/64', '10.2.0.0/16']));
  expect(causes(many.body)).toEqual([
    'FieldValueInvalid spec.cidrs: Invalid value: {"CIDRs":["10.1.0.0/16","fd00:1::/64","10.2.0.0/16"]}: may only hold up to 2 values',
  ]);
  // IsValidCIDR is strict, then canonical.
  const sloppy = await api.post(CIDRS, cidr('sloppy', ['10.1.0.1/16', 'FD00:2::/64']));
  expect(causes(sloppy.body)).toEqual([
    'FieldValueInvalid spec.cidrs[0]: Invalid value: "10.1.0.1/16": must not have bits set beyond the prefix length',
    'FieldValueInvalid spec.cidrs[1]: Invalid value: "FD00:2::/64": must be in canonical form ("fd00:2::/64")',
  ]);
  // A single-stack ServiceCIDR may gain the other family; nothing else changes.
  const growing = await api.post(CIDRS, cidr('growing', ['10.210.0.0/24']));
  const grown = await api.put(`${CIDRS}/growing`, { ...growing.body, spec: { cidrs: ['10.210.0.0/24', 'fd00:210::/112'] } });
  expect(grown.status).toBe(200);
  const changed = await api.put(`${CIDRS}/growing`, { ...grown.body, spec: { cidrs: ['10.211.0.0/24', 'fd00:210::/112'] } });
  expect(causes(changed.body)).toEqual(['FieldValueInvalid spec.cidrs[0]: Invalid value: "10.211.0.0/24": field is immutable']);
  const shrunk = await api.put(`${CIDRS}/growing`, { ...grown.body, spec: { cidrs: ['10.210.0.0/24'] } });
  expect(causes(shrunk.body)).toEqual(['FieldValueInvalid spec.cidrs: Invalid value: ["10.210.0.0/24"]: field is immutable']);
  const zeros = await api.post(IPS, {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IPAddress',
    metadata: { name: '10.96.0.010' },
    spec: { parentRef: { resource: 'services', name: 'x' } },
  });
  expect(causes(zeros.body)).toEqual(['FieldValueInvalid metadata.name: Invalid value: "10.96.0.010": must not have leading 0s']);
  const extra = await api.post(CIDRS, {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'ServiceCIDR',
    metadata: { name: 'extra' },
    spec: { cidrs: ['10.200.0.0/24'] },
  });
  expect(extra.status).toBe(201);
  // An extra ServiceCIDR's range is allocated from once it exists.
  expect((await api.post(SVCS, svc('in-extra', { clusterIP: '10.200.0.9' }))).status).toBe(201);
});

test('default/kubernetes: the first IP of the range, 443 to the secure port, its Endpoints and EndpointSlice at the advertise address', async () => {
  const securePort = Number(new URL(single.secureUrl).port);
  const service = await eventually('the kubernetes Service', async () => {
    const r = await api.get(`${SVCS}/kubernetes`);
    return r.status === 200 ? r.body : undefined;
  });
  expect(service.spec.clusterIP).toBe('10.96.0.1');
  expect(service.spec.ports).toEqual([{ name: 'https', port: 443, protocol: 'TCP', targetPort: securePort }]);
  expect(service.metadata.labels).toEqual({ component: 'apiserver', provider: 'kubernetes' });
  expect((await api.get(`${IPS}/10.96.0.1`)).body.spec.parentRef.name).toBe('kubernetes');
  const slice = await eventually('the kubernetes EndpointSlice', async () => {
    const r = await api.get('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes');
    return r.status === 200 ? r.body : undefined;
  });
  expect(slice.metadata.labels['kubernetes.io/service-name']).toBe('kubernetes');
  expect(slice.addressType).toBe('IPv4');
  expect(slice.endpoints).toEqual([{ addresses: ['127.0.0.1'], conditions: { ready: true } }]);
  expect(slice.ports).toEqual([{ name: 'https', port: securePort, protocol: 'TCP' }]);
  const endpoints = (await api.get('/api/v1/namespaces/default/endpoints/kubernetes')).body;
  expect(endpoints.subsets).toEqual([{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: securePort, protocol: 'TCP' }] }]);
});

test('default/kubernetes: ports changed by hand are put back by the reconciler', async () => {
  const securePort = Number(new URL(single.secureUrl).port);
  const patched = await api.patch(
    `${SVCS}/kubernetes`,
    { spec: { ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 1234 }] } },
    'application/merge-patch+json',
  );
  expect(patched.status).toBe(200);
  await eventually(
    'the targetPort put back',
    async () => ((await api.get(`${SVCS}/kubernetes`)).body.spec.ports[0].targetPort === securePort ? true : undefined),
    15_000,
  );
  expect((await api.get(`${SVCS}/kubernetes`)).body.spec.clusterIP).toBe('10.96.0.1');
});

test('a second replica at another address is listed while it runs and taken out when it stops', async () => {
  const other = await startTestServer({ etcdPrefix: single.prefix, advertiseAddress: '127.0.0.2' });
  const addresses = async (): Promise<string[]> => {
    const slice = (await api.get('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes')).body;
    return slice.endpoints.map((e: { addresses: string[] }) => e.addresses[0]);
  };
  try {
    await eventually('both addresses listed', async () => (JSON.stringify(await addresses()) === '["127.0.0.1","127.0.0.2"]' ? true : undefined), 15_000);
  } finally {
    await other.close();
  }
  expect(await addresses()).toEqual(['127.0.0.1']);
  const endpoints = (await api.get('/api/v1/namespaces/default/endpoints/kubernetes')).body;
  expect(endpoints.subsets[0].addresses).toEqual([{ ip: '127.0.0.1' }]);
});

test('a namespace deleted with its Services gives their IPs and node ports back', async () => {
  expect((await api.post('/api/v1/namespaces', { metadata: { name: 'alloc-gone' } })).status).toBe(201);
  const res = await api.post('/api/v1/namespaces/alloc-gone/services', svc('doomed', { type: 'NodePort', ports: [{ port: 80, nodePort: 30555 }] }));
  expect(res.status).toBe(201);
  const ip = res.body.spec.clusterIP as string;
  expect((await api.delete('/api/v1/namespaces/alloc-gone')).status).toBe(200);
  await eventually('the IPAddress released', async () => ((await api.get(`${IPS}/${ip}`)).status === 404 ? true : undefined));
  const reuse = await api.post(SVCS, svc('port-reuser', { type: 'NodePort', ports: [{ port: 80, nodePort: 30555 }] }));
  expect(reuse.status).toBe(201);
});
