import { causes } from '../harness/causes';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

// Services written as kube-apiserver takes them: SetDefaults_Service, ValidateService and
// ValidateServiceUpdate's messages, the type transitions of the registry (what is kept, cleared,
// allocated and released), and allocation running before validation, as BeginCreate and
// BeginUpdate do.

type Server = Awaited<ReturnType<typeof startTestServer>>;
let server: Server;
let api: Api;
const SVCS = '/api/v1/namespaces/default/services';
const IPS = '/apis/networking.k8s.io/v1/ipaddresses';
const MERGE = 'application/merge-patch+json';

const svc = (name: string, spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, ...metadata },
  spec: { selector: { app: name }, ports: [{ port: 80 }], ...spec },
});

/** Whether a dry-run NodePort create can take `port` (the bitmap is read as it is). */
async function nodePortFree(port: number): Promise<boolean> {
  const res = await api.post(`${SVCS}?dryRun=All`, svc('probe', { type: 'NodePort', ports: [{ port: 80, nodePort: port }] }));
  return res.status === 201;
}

beforeAll(async () => {
  server = await startTestServer({ serviceClusterIpRange: ['10.96.0.0/12'], serviceNodePortRange: { base: 30000, size: 2768 } });
  api = new Api(server.url);
});

afterAll(async () => {
  await server?.close();
});

test('defaults: targetPort from port, TCP, None affinity (its config dropped), ClientIP timeout, traffic policies by type', async () => {
  const plain = await api.post(SVCS, svc('plain', { sessionAffinityConfig: { clientIP: { timeoutSeconds: 5 } } }));
  expect(plain.status).toBe(201);
  expect(plain.body.spec).toMatchObject({
    ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
    type: 'ClusterIP',
    sessionAffinity: 'None',
    internalTrafficPolicy: 'Cluster',
    ipFamilyPolicy: 'SingleStack',
    ipFamilies: ['IPv4'],
  });
  expect(plain.body.spec.sessionAffinityConfig).toBeUndefined();
  expect(plain.body.spec.externalTrafficPolicy).toBeUndefined();
  expect(plain.body.status).toEqual({ loadBalancer: {} });

  const sticky = await api.post(SVCS, svc('sticky', { sessionAffinity: 'ClientIP', sessionAffinityConfig: {} }));
  expect(sticky.body.spec.sessionAffinityConfig).toEqual({ clientIP: { timeoutSeconds: 10800 } });
  // externalIPs make a ClusterIP Service externally accessible.
  const exposed = await api.post(SVCS, svc('exposed', { externalIPs: ['203.0.113.7'] }));
  expect(exposed.body.spec.externalTrafficPolicy).toBe('Cluster');
  const lb = await api.post(SVCS, svc('lb-defaults', { type: 'LoadBalancer' }));
  expect(lb.body.spec).toMatchObject({ externalTrafficPolicy: 'Cluster', allocateLoadBalancerNodePorts: true, internalTrafficPolicy: 'Cluster' });
  const external = await api.post(SVCS, svc('ext-defaults', { type: 'ExternalName', externalName: 'db.example.com', ports: undefined }));
  expect(external.status).toBe(201);
  expect(external.body.spec).toEqual({ selector: { app: 'ext-defaults' }, type: 'ExternalName', externalName: 'db.example.com', sessionAffinity: 'None' });
});

test("ValidateService's messages, all of them at once", async () => {
  const res = await api.post(
    SVCS,
    svc('bad', {
      ports: [{ port: 80 }, { port: 80, name: 'Web' }],
      externalTrafficPolicy: 'Local',
      loadBalancerSourceRanges: ['10.0.0.0/8'],
      sessionAffinity: 'ClientIP',
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 100000 } },
    }),
  );
  expect(res.status).toBe(422);
  expect(causes(res.body)).toEqual([
    'FieldValueRequired spec.ports[0].name: Required value',
    `FieldValueInvalid spec.ports[1].name: Invalid value: "Web": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    'FieldValueInvalid spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 100000: must be greater than 0 and less than 86400',
    'FieldValueDuplicate spec.ports[1]: Duplicate value: {"Name":"","Protocol":"TCP","AppProtocol":null,"Port":80,"TargetPort":0,"NodePort":0}',
    "FieldValueForbidden spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer'",
    'FieldValueInvalid spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services',
  ]);
  const nodePortOnClusterIp = await api.post(SVCS, svc('np-on-cip', { ports: [{ port: 80, nodePort: 30123 }] }));
  expect(nodePortOnClusterIp.body.message).toBe(
    `Service "np-on-cip" is invalid: spec.ports[0].nodePort: Forbidden: may not be used when \`type\` is 'ClusterIP'`,
  );
  const headlessNodePort = await api.post(SVCS, svc('hl-np', { type: 'NodePort', clusterIP: 'None' }));
  expect(headlessNodePort.body.message).toBe(
    `Service "hl-np" is invalid: spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for NodePort services`,
  );
  const externalWithIp = await api.post(SVCS, svc('ext-ip', { type: 'ExternalName', externalName: 'foo_bar.example.com', clusterIP: '10.96.0.60' }));
  expect(causes(externalWithIp.body)).toEqual([
    'FieldValueForbidden spec.clusterIPs: Forbidden: may not be set for ExternalName services',
    `FieldValueInvalid spec.externalName: Invalid value: "foo_bar.example.com": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
  ]);
  const noPorts = await api.post(SVCS, svc('no-ports', { ports: [] }));
  expect(noPorts.body.message).toBe('Service "no-ports" is invalid: spec.ports: Required value');
});

test('allocation comes before validation: a taken IP is the only error, and what an invalid create took is given back', async () => {
  expect((await api.post(SVCS, svc('holder', { clusterIP: '10.96.0.70' }))).status).toBe(201);
  const taken = await api.post(SVCS, svc('taker', { clusterIP: '10.96.0.70', ports: [{ port: 0 }] }));
  expect(taken.body.message).toBe(
    'Service "taker" is invalid: spec.clusterIPs: Invalid value: ["10.96.0.70"]: failed to allocate IP 10.96.0.70: provided IP is already allocated',
  );
  // Valid values, an invalid Service: its clusterIP and node port were taken, then released.
  const invalid = await api.post(SVCS, svc('invalid', { type: 'NodePort', clusterIP: '10.96.0.71', ports: [{ port: 80, nodePort: 30071, protocol: 'HTTP' }] }));
  expect(invalid.status).toBe(422);
  expect(causes(invalid.body)).toEqual(['FieldValueNotSupported spec.ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"']);
  expect((await api.get(`${IPS}/10.96.0.71`)).status).toBe(404);
  expect(await nodePortFree(30071)).toBe(true);
  const valid = await api.post(SVCS, svc('valid', { type: 'NodePort', clusterIP: '10.96.0.71', ports: [{ port: 80, nodePort: 30071 }] }));
  expect(valid.status).toBe(201);
});

test('dry run: a requested node port is checked against the bitmap only; free ones are placeholders from 32769', async () => {
  const res = await api.post(
    `${SVCS}?dryRun=All`,
    svc('dry-lb', {
      type: 'LoadBalancer',
      externalTrafficPolicy: 'Local',
      ports: [
        { name: 'a', port: 80 },
        { name: 'b', port: 81 },
      ],
    }),
  );
  expect(res.status).toBe(201);
  expect(res.body.spec.ports.map((p: { nodePort: number }) => p.nodePort)).toEqual([32769, 32770]);
  expect(res.body.spec.healthCheckNodePort).toBe(32771);
  expect((await api.get(`${SVCS}/dry-lb`)).status).toBe(404);
});

test('one node port per port number on create; two port numbers asking for one node port are refused', async () => {
  const dns = await api.post(
    SVCS,
    svc('dns-np', {
      type: 'NodePort',
      ports: [
        { name: 'udp', port: 53, protocol: 'UDP' },
        { name: 'tcp', port: 53, protocol: 'TCP', nodePort: 30053 },
      ],
    }),
  );
  expect(dns.status).toBe(201);
  expect(dns.body.spec.ports.map((p: { nodePort: number }) => p.nodePort)).toEqual([30053, 30053]);
  const twice = await api.post(
    SVCS,
    svc('twice', {
      type: 'NodePort',
      ports: [
        { name: 'a', port: 80, nodePort: 30081 },
        { name: 'b', port: 81, nodePort: 30081 },
      ],
    }),
  );
  expect(twice.body.message).toBe('Service "twice" is invalid: spec.ports[1].nodePort: Invalid value: 30081: provided port is already allocated');
  expect(await nodePortFree(30081)).toBe(true);
});

test('type transitions: node ports and the health check port come and go with their types; ExternalName drops and regains the IP', async () => {
  const created = await api.post(SVCS, svc('moving'));
  const ip = created.body.spec.clusterIP as string;
  const toNodePort = await api.patch(`${SVCS}/moving`, { spec: { type: 'NodePort' } }, MERGE);
  expect(toNodePort.status).toBe(200);
  const nodePort = toNodePort.body.spec.ports[0].nodePort as number;
  expect(nodePort).toBeGreaterThanOrEqual(30000);
  expect(toNodePort.body.spec).toMatchObject({ clusterIP: ip, externalTrafficPolicy: 'Cluster' });

  const toLb = await api.patch(`${SVCS}/moving`, { spec: { type: 'LoadBalancer', externalTrafficPolicy: 'Local' } }, MERGE);
  const hc = toLb.body.spec.healthCheckNodePort as number;
  expect(toLb.body.spec).toMatchObject({ allocateLoadBalancerNodePorts: true, ports: [{ nodePort }] });
  expect(hc).toBeGreaterThanOrEqual(30000);
  const hcChange = await api.patch(`${SVCS}/moving`, { spec: { healthCheckNodePort: hc === 30999 ? 30998 : 30999 } }, MERGE);
  expect(hcChange.body.message).toBe('Service "moving" is invalid: spec.healthCheckNodePort: Forbidden: field is immutable');
  const lbClass = await api.patch(`${SVCS}/moving`, { spec: { loadBalancerClass: 'example.com/lb' } }, MERGE);
  expect(lbClass.body.message).toBe('Service "moving" is invalid: spec.loadBalancerClass: Invalid value: "example.com/lb": may not change once set');

  // Back to ClusterIP: node ports, health check port, policy and allocateLoadBalancerNodePorts are dropped, the ports freed.
  const back = await api.patch(`${SVCS}/moving`, { spec: { type: 'ClusterIP' } }, MERGE);
  expect(back.status).toBe(200);
  expect(back.body.spec).toEqual({
    ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
    selector: { app: 'moving' },
    clusterIP: ip,
    clusterIPs: [ip],
    type: 'ClusterIP',
    sessionAffinity: 'None',
    ipFamilies: ['IPv4'],
    ipFamilyPolicy: 'SingleStack',
    internalTrafficPolicy: 'Cluster',
  });
  expect(await nodePortFree(nodePort)).toBe(true);
  expect(await nodePortFree(hc)).toBe(true);

  const toExternal = await api.patch(`${SVCS}/moving`, { spec: { type: 'ExternalName', externalName: 'db.example.com' } }, MERGE);
  expect(toExternal.status).toBe(200);
  expect(toExternal.body.spec.clusterIP).toBeUndefined();
  expect(toExternal.body.spec.ipFamilies).toBeUndefined();
  expect(toExternal.body.spec.ipFamilyPolicy).toBeUndefined();
  // kube hides an ExternalName Service's internalTrafficPolicy.
  expect(toExternal.body.spec.internalTrafficPolicy).toBeUndefined();
  expect((await api.get(`${IPS}/${ip}`)).status).toBe(404);

  const fromExternal = await api.patch(`${SVCS}/moving`, { spec: { type: 'ClusterIP', externalName: null } }, MERGE);
  expect(fromExternal.status).toBe(200);
  expect(fromExternal.body.spec.clusterIP).toMatch(/^10\./);
  expect(fromExternal.body.spec).toMatchObject({ ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4'], internalTrafficPolicy: 'Cluster' });
});

test('clusterIP is immutable; an update that leaves out what was allocated keeps it', async () => {
  const created = await api.post(SVCS, svc('fixed', { type: 'NodePort' }));
  const { clusterIP } = created.body.spec;
  const nodePort = created.body.spec.ports[0].nodePort;
  const changed = await api.patch(`${SVCS}/fixed`, { spec: { clusterIP: '10.96.0.99' } }, MERGE);
  expect(changed.status).toBe(422);
  expect(changed.body.message).toBe('Service "fixed" is invalid: spec.clusterIPs[0]: Invalid value: ["10.96.0.99"]: may not change once set');
  // Not even taken for the attempt.
  expect((await api.get(`${IPS}/10.96.0.99`)).status).toBe(404);
  const dropped = await api.patch(`${SVCS}/fixed`, { spec: { clusterIP: null, clusterIPs: null } }, MERGE);
  expect(dropped.body.spec.clusterIPs).toEqual([clusterIP]);
  // A PUT of the manifest as first sent: the allocated values are kept.
  const current = (await api.get(`${SVCS}/fixed`)).body;
  const put = await api.put(`${SVCS}/fixed`, {
    ...svc('fixed', { type: 'NodePort' }),
    metadata: { name: 'fixed', resourceVersion: current.metadata.resourceVersion },
  });
  expect(put.status).toBe(200);
  expect(put.body.spec).toMatchObject({ clusterIP, clusterIPs: [clusterIP], ports: [{ nodePort }], ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4'] });
  const families = await api.patch(`${SVCS}/fixed`, { spec: { ipFamilies: ['IPv6'] } }, MERGE);
  expect(families.body.message).toBe(
    `Service "fixed" is invalid: spec.clusterIPs[0]: Invalid value: "${clusterIP}": expected an IPv6 value as indicated by \`ipFamilies[0]\``,
  );
});

test('an update giving two ports one node port is the 500 kube answers', async () => {
  const created = await api.post(SVCS, svc('two-ports', { type: 'NodePort', ports: [{ name: 'a', port: 80, nodePort: 30200 }] }));
  expect(created.status).toBe(201);
  const res = await api.patch(
    `${SVCS}/two-ports`,
    {
      spec: {
        ports: [
          { name: 'a', port: 80, nodePort: 30200 },
          { name: 'b', port: 81, nodePort: 30200 },
        ],
      },
    },
    MERGE,
  );
  expect(res.status).toBe(500);
  expect(res.body).toMatchObject({ status: 'Failure', message: 'duplicate nodePort: {TCP 30200}', code: 500 });
});

test('headless without selector: RequireDualStack over both families, on a single-stack cluster too', async () => {
  const res = await api.post(SVCS, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'headless' }, spec: { clusterIP: 'None' } });
  expect(res.status).toBe(201);
  expect(res.body.spec).toMatchObject({ clusterIP: 'None', clusterIPs: ['None'], ipFamilyPolicy: 'RequireDualStack', ipFamilies: ['IPv4', 'IPv6'] });
  const selected = await api.post(SVCS, svc('headless-sel', { clusterIP: 'None' }));
  expect(selected.body.spec).toMatchObject({ ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4'] });
  const policy = await api.post(SVCS, svc('two-policy', { ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4', 'IPv6'] }));
  expect(causes(policy.body)).toEqual([
    `FieldValueInvalid spec.ipFamilyPolicy: Invalid value: "SingleStack": must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified`,
  ]);
  const v6 = await api.post(SVCS, svc('v6-ip', { clusterIP: 'fd00::10' }));
  expect(causes(v6.body)).toEqual(['FieldValueInvalid spec.clusterIPs[0]: Invalid value: ["fd00::10"]: IPv6 is not configured on this cluster']);
});

test('status: ingress only on a LoadBalancer; an ingress IP gets ipMode VIP', async () => {
  const lb = await api.post(SVCS, svc('lb-status', { type: 'LoadBalancer' }));
  const status = await api.put(`${SVCS}/lb-status/status`, { ...lb.body, status: { loadBalancer: { ingress: [{ ip: '203.0.113.10' }] } } });
  expect(status.status).toBe(200);
  expect(status.body.status.loadBalancer.ingress).toEqual([{ ip: '203.0.113.10', ipMode: 'VIP' }]);
  const cip = await api.post(SVCS, svc('cip-status'));
  const refused = await api.put(`${SVCS}/cip-status/status`, { ...cip.body, status: { loadBalancer: { ingress: [{ ip: '203.0.113.11' }] } } });
  expect(refused.status).toBe(422);
  expect(refused.body.message).toBe(
    `Service "cip-status" is invalid: status.loadBalancer.ingress: Forbidden: may only be used when \`spec.type\` is 'LoadBalancer'`,
  );
  // Leaving LoadBalancer clears the status.
  const moved = await api.patch(`${SVCS}/lb-status`, { spec: { type: 'ClusterIP' } }, MERGE);
  expect(moved.body.status).toEqual({ loadBalancer: {} });
});

test("a valid Service is warned about what kube's GetWarningsForService names; an invalid one only refused", async () => {
  const warned = await api.post(
    SVCS,
    svc(
      'warned',
      {
        type: 'LoadBalancer',
        externalName: 'db.example.com',
        loadBalancerIP: '2001:DB8::1',
        loadBalancerSourceRanges: ['2001:DB8::/64'],
        trafficDistribution: 'PreferClose',
      },
      { annotations: { 'service.kubernetes.io/topology-aware-hints': 'auto' } },
    ),
  );
  expect(warned.status).toBe(201);
  expect(warned.headers.get('warning')).toBe(
    [
      '299 - "annotation service.kubernetes.io/topology-aware-hints is deprecated, please use service.kubernetes.io/topology-mode instead"',
      '299 - "spec.loadBalancerIP: IPv6 address \\"2001:DB8::1\\" should be in RFC 5952 canonical format (\\"2001:db8::1\\")"',
      '299 - "spec.loadBalancerSourceRanges[0]: IPv6 CIDR value \\"2001:DB8::/64\\" should be in RFC 5952 canonical format (\\"2001:db8::/64\\")"',
      '299 - "spec.externalName is ignored when spec.type is not \\"ExternalName\\""',
      '299 - "spec.trafficDistribution: \\"PreferClose\\" is deprecated; use \\"PreferSameZone\\""',
    ].join(', '),
  );
  const headless = await api.post(SVCS, svc('hl-warned', { clusterIP: 'None', sessionAffinity: 'ClientIP', externalIPs: ['203.0.113.5'] }));
  expect(headless.headers.get('warning')).toBe(
    '299 - "spec.externalIPs is ignored for headless services", 299 - "spec.SessionAffinity is ignored for headless services"',
  );
  const invalid = await api.post(SVCS, svc('invalid-warned', { type: 'Foo', trafficDistribution: 'PreferClose' }));
  expect(invalid.status).toBe(422);
  expect(invalid.headers.get('warning')).toBeNull();
});
