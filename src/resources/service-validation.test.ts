import { fieldErrorMessage } from '../api/field-errors';
import type { KubeObject } from '../api/types';
import { validateService, validateServiceClusterIpsRelatedFields, validateServiceStatus, validateServiceUpdate } from './service-validation';

/** A Service as kube's defaulting and allocation leave it, with `spec` merged in. */
const svc = (spec: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 's', namespace: 'default', ...metadata },
  spec: {
    type: 'ClusterIP',
    sessionAffinity: 'None',
    internalTrafficPolicy: 'Cluster',
    clusterIP: '10.0.0.1',
    clusterIPs: ['10.0.0.1'],
    ipFamilies: ['IPv4'],
    ipFamilyPolicy: 'SingleStack',
    ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
    ...spec,
  },
});

const errors = (s: KubeObject): string[] => validateService(s).map(fieldErrorMessage);
const updateErrors = (next: KubeObject, prev: KubeObject): string[] => validateServiceUpdate(next, prev).map(fieldErrorMessage);

test('a well-formed Service of each type passes', () => {
  expect(errors(svc())).toEqual([]);
  expect(errors(svc({ type: 'NodePort', externalTrafficPolicy: 'Cluster', ports: [{ port: 80, protocol: 'TCP', targetPort: 80, nodePort: 30001 }] }))).toEqual(
    [],
  );
  expect(errors(svc({ type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: 30002, allocateLoadBalancerNodePorts: true }))).toEqual([]);
  expect(
    errors(
      svc({
        type: 'ExternalName',
        externalName: 'db.example.com.',
        clusterIP: undefined,
        clusterIPs: undefined,
        ipFamilies: undefined,
        ipFamilyPolicy: undefined,
      }),
    ),
  ).toEqual([]);
  // Headless without ports.
  expect(errors(svc({ clusterIP: 'None', clusterIPs: ['None'], ports: undefined }))).toEqual([]);
});

test('ports: required, names required when several, duplicate names and (protocol, port) pairs', () => {
  expect(errors(svc({ ports: undefined }))).toEqual(['spec.ports: Required value']);
  expect(
    errors(
      svc({
        ports: [
          { port: 80, protocol: 'TCP', targetPort: 80 },
          { port: 80, protocol: 'TCP', targetPort: 80 },
          { name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 },
          { name: 'dns', port: 53, protocol: 'TCP', targetPort: 53 },
        ],
      }),
    ),
  ).toEqual([
    'spec.ports[0].name: Required value',
    'spec.ports[1].name: Required value',
    'spec.ports[3].name: Duplicate value: "dns"',
    'spec.ports[1]: Duplicate value: {"Name":"","Protocol":"TCP","AppProtocol":null,"Port":80,"TargetPort":0,"NodePort":0}',
  ]);
});

test("a port's number, protocol, target port, name and appProtocol", () => {
  expect(errors(svc({ ports: [{ name: 'Web', port: 0, protocol: 'HTTP', targetPort: 'x_y', appProtocol: 'a b' }] }))).toEqual([
    `spec.ports[0].name: Invalid value: "Web": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    'spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
    'spec.ports[0].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
    'spec.ports[0].targetPort: Invalid value: "x_y": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
    `spec.ports[0].appProtocol: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
  ]);
  expect(errors(svc({ ports: [{ port: 80, protocol: 'TCP', targetPort: 70000 }] }))).toEqual([
    'spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
  ]);
});

test('node ports: forbidden on ClusterIP, duplicates by (protocol, nodePort)', () => {
  expect(errors(svc({ ports: [{ port: 80, protocol: 'TCP', targetPort: 80, nodePort: 30001 }] }))).toEqual([
    "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'",
  ]);
  const ports = [
    { name: 'a', port: 80, protocol: 'TCP', targetPort: 80, nodePort: 30001 },
    { name: 'b', port: 81, protocol: 'TCP', targetPort: 81, nodePort: 30001 },
    { name: 'c', port: 81, protocol: 'UDP', targetPort: 81, nodePort: 30001 },
  ];
  expect(errors(svc({ type: 'NodePort', externalTrafficPolicy: 'Cluster', ports }))).toEqual(['spec.ports[1].nodePort: Duplicate value: 30001']);
});

test('ExternalName: a DNS name (a trailing dot allowed), no cluster IPs, families or policy', () => {
  const external = { type: 'ExternalName', clusterIP: undefined, clusterIPs: undefined, ipFamilies: undefined, ipFamilyPolicy: undefined };
  expect(errors(svc({ ...external, externalName: '' }))).toEqual(['spec.externalName: Required value']);
  expect(errors(svc({ ...external, externalName: 'foo_bar.' }))[0]).toMatch(/^spec\.externalName: Invalid value: "foo_bar": a lowercase RFC 1123 subdomain/);
  expect(
    errors(svc({ ...external, externalName: 'x.com', clusterIPs: ['10.0.0.1'], clusterIP: '10.0.0.1', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack' })),
  ).toEqual([
    'spec.clusterIPs: Forbidden: may not be set for ExternalName services',
    'spec.ipFamilies: Forbidden: may not be set for ExternalName services',
    'spec.ipFamilyPolicy: Forbidden: may not be set for ExternalName services',
  ]);
});

test("headless: not for NodePort or LoadBalancer, 'None' alone", () => {
  const headless = { clusterIP: 'None', clusterIPs: ['None'] };
  expect(errors(svc({ ...headless, type: 'NodePort', externalTrafficPolicy: 'Cluster' }))).toEqual([
    `spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for NodePort services`,
  ]);
  expect(errors(svc({ ...headless, type: 'LoadBalancer', externalTrafficPolicy: 'Cluster', allocateLoadBalancerNodePorts: true }))).toEqual([
    `spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for LoadBalancer services`,
  ]);
  expect(validateServiceClusterIpsRelatedFields({ type: 'ClusterIP', clusterIP: 'None', clusterIPs: ['None', '10.0.0.1'] }).map(fieldErrorMessage)).toEqual([
    `spec.clusterIPs: Invalid value: ["None","10.0.0.1"]: 'None' must be the first and only value`,
  ]);
});

test('clusterIPs: in step with clusterIP, IPs, one per family, of the family at their index', () => {
  const related = (spec: Record<string, unknown>) => validateServiceClusterIpsRelatedFields({ type: 'ClusterIP', ...spec }).map(fieldErrorMessage);
  expect(related({ clusterIP: '10.0.0.1' })).toEqual(['spec.clusterIPs: Required value']);
  expect(related({ clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.2'] })).toEqual([
    'spec.clusterIPs: Invalid value: ["10.0.0.2"]: first value must match `clusterIP`',
  ]);
  expect(related({ clusterIPs: ['10.0.0.2'] })).toEqual(['spec.clusterIPs: Invalid value: ["10.0.0.2"]: must be empty when `clusterIP` is not specified']);
  expect(related({ clusterIP: 'x', clusterIPs: ['x'] })).toEqual([
    'spec.clusterIPs[0]: Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
  ]);
  expect(related({ clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.1', '10.0.0.2'] })).toEqual([
    'spec.clusterIPs: Invalid value: ["10.0.0.1","10.0.0.2"]: may specify no more than one IP for each IP family',
  ]);
  expect(related({ clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.1', 'fd00::1', '10.0.0.2'] })).toEqual([
    'spec.clusterIPs: Invalid value: ["10.0.0.1","fd00::1","10.0.0.2"]: may only hold up to 2 values',
  ]);
  expect(related({ clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.1'], ipFamilies: ['IPv6', 'IPv6', 'IPv5'], ipFamilyPolicy: 'Dual' })).toEqual([
    'spec.ipFamilies[1]: Duplicate value: "IPv6"',
    'spec.ipFamilies[2]: Unsupported value: "IPv5": supported values: "IPv4", "IPv6"',
    'spec.ipFamilyPolicy: Unsupported value: "Dual": supported values: "PreferDualStack", "RequireDualStack", "SingleStack"',
    'spec.clusterIPs[0]: Invalid value: "10.0.0.1": expected an IPv6 value as indicated by `ipFamilies[0]`',
  ]);
});

test('session affinity: a known value; ClientIP with a timeout in (0, 86400]', () => {
  expect(errors(svc({ sessionAffinity: 'Sticky' }))).toEqual(['spec.sessionAffinity: Unsupported value: "Sticky": supported values: "ClientIP", "None"']);
  expect(errors(svc({ sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 86401 } } }))).toEqual([
    'spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 86401: must be greater than 0 and less than 86400',
  ]);
  expect(errors(svc({ sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 86400 } } }))).toEqual([]);
  expect(errors(svc({ sessionAffinity: 'ClientIP' }))).toEqual(['spec.sessionAffinityConfig: Required value: when session affinity type is ClientIP']);
});

test('IPs and CIDRs as StrictIPCIDRValidation reads them: no leading zeros, no IPv4-mapped IPv6, no bits past the prefix', () => {
  expect(validateServiceClusterIpsRelatedFields({ type: 'ClusterIP', clusterIP: '10.0.0.01', clusterIPs: ['10.0.0.01'] }).map(fieldErrorMessage)).toEqual([
    'spec.clusterIPs[0]: Invalid value: "10.0.0.01": must not have leading 0s',
  ]);
  expect(errors(svc({ externalIPs: ['::ffff:1.2.3.4'], externalTrafficPolicy: 'Cluster' }))).toEqual([
    'spec.externalIPs[0]: Invalid value: "::ffff:1.2.3.4": must not be an IPv4-mapped IPv6 address',
  ]);
  const lb = { type: 'LoadBalancer', externalTrafficPolicy: 'Cluster', allocateLoadBalancerNodePorts: true };
  expect(errors(svc({ ...lb, loadBalancerSourceRanges: ['10.0.0.1/8', '10.0.0.0/08', '10.0.0.0/8'] }))).toEqual([
    'spec.LoadBalancerSourceRanges[0]: Invalid value: "10.0.0.1/8": must not have bits set beyond the prefix length',
    'spec.LoadBalancerSourceRanges[1]: Invalid value: "10.0.0.0/08": must not have leading 0s in IP or prefix length',
  ]);
  // An update may keep what the old object already had.
  const old = svc({ ...lb, externalIPs: ['1.2.3.04'], loadBalancerSourceRanges: ['10.0.0.1/8'] });
  expect(updateErrors(svc({ ...lb, externalIPs: ['5.6.7.8', '1.2.3.04'], loadBalancerSourceRanges: ['10.0.0.1/8'] }), old)).toEqual([]);
  expect(updateErrors(svc({ ...lb, externalIPs: ['1.2.3.05'] }), old)).toEqual(['spec.externalIPs[0]: Invalid value: "1.2.3.05": must not have leading 0s']);
});

test('externalIPs: IPs that are not special; selector labels', () => {
  expect(errors(svc({ externalIPs: ['1.2.3.4', 'nope', '0.0.0.0', '169.254.1.1'], externalTrafficPolicy: 'Cluster' }))).toEqual([
    'spec.externalIPs[1]: Invalid value: "nope": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    'spec.externalIPs[2]: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)',
    'spec.externalIPs[3]: Invalid value: "169.254.1.1": may not be in the link-local range (169.254.0.0/16, fe80::/10)',
  ]);
  expect(errors(svc({ selector: { app: 'a b' } }))[0]).toMatch(/^spec\.selector: Invalid value: "a b": a valid label must be/);
});

test('type: required and known', () => {
  expect(errors(svc({ type: 'Foo' }))).toEqual([
    'spec.type: Unsupported value: "Foo": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
  ]);
});

test('load balancer fields only on a LoadBalancer: source ranges (kube spells the field LoadBalancerSourceRanges), class, node port allocation', () => {
  expect(errors(svc({ loadBalancerSourceRanges: ['10.0.0.0/8'], loadBalancerClass: 'example.com/lb', allocateLoadBalancerNodePorts: false }))).toEqual([
    "spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer'",
    "spec.allocateLoadBalancerNodePorts: Forbidden: may only be used when `type` is 'LoadBalancer'",
    "spec.loadBalancerClass: Forbidden: may only be used when `type` is 'LoadBalancer'",
  ]);
  const lb = { type: 'LoadBalancer', externalTrafficPolicy: 'Cluster', allocateLoadBalancerNodePorts: true };
  expect(errors(svc({ ...lb, loadBalancerSourceRanges: [' 10.0.0.0/8 ', '10.0.0.0/33'] }))).toEqual([
    'spec.LoadBalancerSourceRanges[1]: Invalid value: "10.0.0.0/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
  ]);
  const annotated = svc({ ...lb }, { annotations: { 'service.beta.kubernetes.io/load-balancer-source-ranges': '10.0.0.0/8, bad' } });
  expect(errors(annotated)).toEqual([
    'metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]: Invalid value: "bad": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
  ]);
  expect(errors(svc({ ...lb, allocateLoadBalancerNodePorts: undefined }))).toEqual(['allocateLoadBalancerNodePorts: Required value']);
});

test('traffic policies: external only where externally accessible, a health check node port only for Local load balancers', () => {
  expect(errors(svc({ externalTrafficPolicy: 'Local' }))).toEqual([
    'spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services',
  ]);
  expect(errors(svc({ type: 'NodePort' }))).toEqual(['spec.externalTrafficPolicy: Required value']);
  expect(errors(svc({ type: 'NodePort', externalTrafficPolicy: 'Global', healthCheckNodePort: 30001 }))).toEqual([
    'spec.externalTrafficPolicy: Unsupported value: "Global": supported values: "Cluster", "Local"',
    "spec.healthCheckNodePort: Invalid value: 30001: may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
  ]);
  expect(errors(svc({ internalTrafficPolicy: undefined }))).toEqual(['spec.internalTrafficPolicy: Required value']);
  expect(errors(svc({ internalTrafficPolicy: 'Node' }))).toEqual([
    'spec.internalTrafficPolicy: Unsupported value: "Node": supported values: "Cluster", "Local"',
  ]);
  expect(errors(svc({ trafficDistribution: 'PreferSameNode' }))).toEqual([]);
  expect(errors(svc({ trafficDistribution: 'Nearby' }))).toEqual([
    'spec.trafficDistribution: Unsupported value: "Nearby": supported values: "PreferClose", "PreferSameZone", "PreferSameNode"',
  ]);
});

test('the two topology annotations agree when both are given', () => {
  const both = { 'service.kubernetes.io/topology-mode': 'Auto', 'service.kubernetes.io/topology-aware-hints': 'Disabled' };
  expect(errors(svc({}, { annotations: both }))).toEqual([
    'metadata.annotations[service.kubernetes.io/topology-mode]: Invalid value: "Auto": must match annotations[service.kubernetes.io/topology-aware-hints] when both are specified',
  ]);
});

test('update: the primary cluster IP and family never change; the secondary goes only with SingleStack', () => {
  const dual = svc({ clusterIPs: ['10.0.0.1', 'fd00::1'], ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'PreferDualStack' });
  expect(updateErrors(svc({ clusterIP: '10.0.0.2', clusterIPs: ['10.0.0.2'] }), svc())).toEqual([
    'spec.clusterIPs[0]: Invalid value: ["10.0.0.2"]: may not change once set',
  ]);
  expect(updateErrors(svc({ ipFamilyPolicy: 'PreferDualStack' }), dual)).toEqual([
    `spec.ipFamilyPolicy: Invalid value: "PreferDualStack": must be set to 'SingleStack' when releasing the secondary clusterIP`,
    `spec.ipFamilyPolicy: Invalid value: "PreferDualStack": must be set to 'SingleStack' when releasing the secondary ipFamily`,
  ]);
  expect(updateErrors(svc(), dual)).toEqual([]);
  // To or from ExternalName, anything goes.
  expect(updateErrors(svc({ clusterIP: '10.0.0.9', clusterIPs: ['10.0.0.9'] }), svc({ type: 'ExternalName', externalName: 'x.com' }))).toEqual([]);
});

test('update: a LoadBalancer keeps its class and its health check node port', () => {
  const lb = (spec: Record<string, unknown>) =>
    svc({ type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: 30001, allocateLoadBalancerNodePorts: true, ...spec });
  expect(updateErrors(lb({ loadBalancerClass: 'b.io/lb', healthCheckNodePort: 30002 }), lb({ loadBalancerClass: 'a.io/lb' }))).toEqual([
    'spec.loadBalancerClass: Invalid value: "b.io/lb": may not change once set',
    'spec.healthCheckNodePort: Forbidden: field is immutable',
  ]);
});

test('status: load balancer ingress only on a LoadBalancer, with an IP and its mode, or a DNS name', () => {
  const status = (type: string, ingress: unknown[]) =>
    validateServiceStatus({ ...svc({ type }), status: { loadBalancer: { ingress } } }, svc({ type })).map(fieldErrorMessage);
  expect(status('ClusterIP', [{ ip: '1.2.3.4', ipMode: 'VIP' }])).toEqual([
    "status.loadBalancer.ingress: Forbidden: may only be used when `spec.type` is 'LoadBalancer'",
  ]);
  expect(
    status('LoadBalancer', [{ ip: '1.2.3.4' }, { hostname: 'lb.example.com', ipMode: 'VIP' }, { ip: '1.2.3.5', ipMode: 'Tunnel' }, { hostname: '1.2.3.6' }]),
  ).toEqual([
    'status.loadBalancer.ingress[0].ipMode: Required value: must be specified when `ip` is set',
    'status.loadBalancer.ingress[1].ipMode: Forbidden: may not be specified when `ip` is not set',
    'status.loadBalancer.ingress[2].ipMode: Unsupported value: "Tunnel": supported values: "Proxy", "VIP"',
    'status.loadBalancer.ingress[3].hostname: Invalid value: "1.2.3.6": must be a DNS name, not an IP address',
  ]);
});
