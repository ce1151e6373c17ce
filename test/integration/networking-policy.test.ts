import { decodeProtobuf } from '../../src/codec/protobuf';
import { encodeProtobuf } from '../../src/codec/protobuf-write';
import { causes } from '../harness/causes';
import { RawEtcd } from '../harness/etcd-keys';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

/** networking.k8s.io/v1 ingresses, ingressclasses, networkpolicies and policy/v1 poddisruptionbudgets. */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
let etcd: RawEtcd;
const NET = '/apis/networking.k8s.io/v1';
const POLICY = '/apis/policy/v1';
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

beforeAll(async () => {
  // PodDisruptionBudgets' status is written here by hand; disruption.test.ts runs the disruption controller.
  server = await startTestServer({ controllers: ['*', '-disruption-controller'] });
  api = new Api(server.url);
  etcd = new RawEtcd();
});

afterAll(async () => {
  etcd.close();
  await server.close();
});

const ingress = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name }, spec });
const netpol = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name }, spec });
const pdb = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec });
const servicePath = (path: string, pathType: string | undefined, backend: Record<string, unknown>) => ({ path, ...(pathType ? { pathType } : {}), backend });

describe('discovery', () => {
  test('the two groups and their resources, between apps and rbac as in kube-apiserver', async () => {
    const groups: string[] = (await api.get('/apis')).body.groups.map((g: { name: string }) => g.name);
    expect(groups.indexOf('networking.k8s.io')).toBeGreaterThan(groups.indexOf('apps'));
    expect(groups.indexOf('policy')).toBe(groups.indexOf('networking.k8s.io') + 1);
    expect(groups.indexOf('rbac.authorization.k8s.io')).toBe(groups.indexOf('policy') + 1);
    const net = (await api.get(NET)).body.resources as { name: string; namespaced: boolean; kind: string; shortNames?: string[] }[];
    expect(net.map((r) => [r.name, r.kind, r.namespaced, r.shortNames ?? []])).toEqual([
      ['ingressclasses', 'IngressClass', false, []],
      ['ingresses', 'Ingress', true, ['ing']],
      ['ingresses/status', 'Ingress', true, []],
      ['ipaddresses', 'IPAddress', false, ['ip']],
      ['networkpolicies', 'NetworkPolicy', true, ['netpol']],
      ['servicecidrs', 'ServiceCIDR', false, []],
      ['servicecidrs/status', 'ServiceCIDR', false, []],
    ]);
    const policy = (await api.get(POLICY)).body.resources as { name: string; shortNames?: string[] }[];
    expect(policy.map((r) => [r.name, r.shortNames ?? []])).toEqual([
      ['poddisruptionbudgets', ['pdb']],
      ['poddisruptionbudgets/status', []],
    ]);
  });
});

describe('ingresses', () => {
  test('created with generation 1, an empty load-balancer status and the port of a service backend; stored under /registry/ingress', async () => {
    const res = await api.post(
      `${NET}/namespaces/default/ingresses`,
      ingress('web', {
        ingressClassName: 'nginx',
        rules: [{ host: 'example.com', http: { paths: [servicePath('/', 'Prefix', { service: { name: 'web', port: { number: 80 } } })] } }],
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body.metadata.generation).toBe(1);
    expect(res.body.status).toEqual({ loadBalancer: {} });
    expect(await etcd.keys(`${server.prefix}/ingress/`)).toEqual([`${server.prefix}/ingress/default/web`]);
  });

  test("validation: backends, pathType, absolute paths and hosts, with kube-apiserver's causes", async () => {
    const res = await api.post(
      `${NET}/namespaces/default/ingresses`,
      ingress('bad', {
        rules: [
          {
            host: '*',
            http: {
              paths: [
                servicePath('/a', undefined, { service: { name: 'web', port: { number: 80 } } }),
                servicePath('api', 'Prefix', {}),
                servicePath('/b', 'Regex', { service: { name: 'web' } }),
              ],
            },
          },
          {
            host: '10.0.0.1',
            http: { paths: [servicePath('/', 'Exact', { service: { name: 'web', port: { number: 80 } }, resource: { kind: 'Bucket', name: 'b' } })] },
          },
        ],
      }),
    );
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/^Ingress.networking.k8s.io "bad" is invalid: \[/);
    expect(causes(res.body)).toEqual([
      expect.stringMatching(/^FieldValueInvalid spec.rules\[0\].host: Invalid value: "\*": a wildcard DNS-1123 subdomain must start with/),
      'FieldValueRequired spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified',
      'FieldValueInvalid spec.rules[0].http.paths[1].path: Invalid value: "api": must be an absolute path',
      'FieldValueInvalid spec.rules[0].http.paths[1].backend: Invalid value: "": resource or service backend is required',
      'FieldValueNotSupported spec.rules[0].http.paths[2].pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"',
      'FieldValueRequired spec.rules[0].http.paths[2].backend: Required value: port name or number is required',
      'FieldValueInvalid spec.rules[1].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address',
      'FieldValueInvalid spec.rules[1].http.paths[0].backend: Invalid value: "": cannot set both resource and service backends',
    ]);
    const empty = await api.post(`${NET}/namespaces/default/ingresses`, ingress('empty', {}));
    expect(causes(empty.body)).toEqual(['FieldValueInvalid spec: Invalid value: null: either `defaultBackend` or `rules` must be specified']);
  });

  test('status is written only through the status subresource', async () => {
    const path = `${NET}/namespaces/default/ingresses/web`;
    const lb = { ingress: [{ ip: '192.0.2.10' }] };
    const ignored = await api.patch(path, { status: { loadBalancer: lb }, spec: { ingressClassName: 'traefik' } }, 'application/merge-patch+json');
    expect(ignored.body.status).toEqual({ loadBalancer: {} });
    expect(ignored.body.metadata.generation).toBe(2);
    const status = await api.patch(`${path}/status`, { status: { loadBalancer: lb } }, 'application/merge-patch+json');
    expect(status.status).toBe(200);
    expect(status.body.status.loadBalancer).toEqual(lb);
    expect(status.body.metadata.generation).toBe(2);
    const table = await api.get(path, { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' });
    expect(table.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Class', 'Hosts', 'Address', 'Ports', 'Age']);
    expect(table.body.rows[0].cells.slice(0, 5)).toEqual(['web', 'traefik', 'example.com', '192.0.2.10', '80']);
  });

  test('the class annotation agrees with ingressClassName on create; an IP host however written; status IPs read strictly', async () => {
    const mismatch = await api.post(`${NET}/namespaces/default/ingresses`, {
      ...ingress('mismatch', { ingressClassName: 'nginx', defaultBackend: { service: { name: 'web', port: { number: 80 } } } }),
      metadata: { name: 'mismatch', annotations: { 'kubernetes.io/ingress.class': 'traefik' } },
    });
    expect(causes(mismatch.body)).toEqual([
      'FieldValueInvalid annotations.kubernetes.io/ingress.class: Invalid value: "traefik": must match `ingressClassName` when both are specified',
    ]);
    // ParseIPSloppy reads 010.0.0.1 as an IP, so it is no host name.
    const sloppyHost = await api.post(
      `${NET}/namespaces/default/ingresses`,
      ingress('sloppy', { rules: [{ host: '010.0.0.1', http: { paths: [servicePath('/', 'Prefix', { service: { name: 'web', port: { number: 80 } } })] } }] }),
    );
    expect(causes(sloppyHost.body)).toEqual(['FieldValueInvalid spec.rules[0].host: Invalid value: "010.0.0.1": must be a DNS name, not an IP address']);
    const status = await api.patch(
      `${NET}/namespaces/default/ingresses/web/status`,
      { status: { loadBalancer: { ingress: [{ ip: '192.0.2.010' }] } } },
      'application/merge-patch+json',
    );
    expect(causes(status.body)).toEqual(['FieldValueInvalid status.loadBalancer.ingress[0].ip: Invalid value: "192.0.2.010": must not have leading 0s']);
  });

  test('protobuf in and out, the service port by number or by name', async () => {
    const body = ingress('proto', {
      rules: [{ http: { paths: [servicePath('/', 'ImplementationSpecific', { service: { name: 'web', port: { name: 'http' } } })] } }],
      tls: [{ hosts: ['*.example.com'], secretName: 'tls' }],
    });
    const res = await fetch(`${server.url}${NET}/namespaces/default/ingresses`, {
      method: 'POST',
      headers: { 'Content-Type': PROTOBUF, Accept: PROTOBUF },
      body: encodeProtobuf(body),
    });
    expect(res.status).toBe(201);
    const created = decodeProtobuf(Buffer.from(await res.arrayBuffer()));
    expect(created).toMatchObject({ kind: 'Ingress', spec: body.spec, status: { loadBalancer: {} } });
    expect((await api.get(`${NET}/namespaces/default/ingresses/proto`)).body.spec).toEqual(body.spec);
  });
});

describe('ingressclasses', () => {
  test('a parameters reference defaults to Cluster scope; the controller is required and immutable', async () => {
    const res = await api.post(`${NET}/ingressclasses`, {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: { name: 'nginx' },
      spec: { controller: 'k8s.io/ingress-nginx', parameters: { apiGroup: 'k8s.example.com', kind: 'Params', name: 'p' } },
    });
    expect(res.status).toBe(201);
    expect(res.body.spec.parameters.scope).toBe('Cluster');
    const changed = await api.patch(`${NET}/ingressclasses/nginx`, { spec: { controller: 'example.com/other' } }, 'application/merge-patch+json');
    expect(changed.status).toBe(422);
    expect(causes(changed.body)).toEqual(['FieldValueInvalid spec.controller: Invalid value: "example.com/other": field is immutable']);
    const missing = await api.post(`${NET}/ingressclasses`, {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: { name: 'none' },
      spec: { controller: 'nginx' },
    });
    expect(causes(missing.body)).toEqual(['FieldValueInvalid spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")']);
  });
});

describe('networkpolicies', () => {
  test('defaults: an empty pod selector, TCP ports, policy types from the rules', async () => {
    const res = await api.post(
      `${NET}/namespaces/default/networkpolicies`,
      netpol('db', { ingress: [{ ports: [{ port: 5432 }] }], egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }] }] }),
    );
    expect(res.status).toBe(201);
    expect(res.body.spec).toEqual({
      podSelector: {},
      ingress: [{ ports: [{ protocol: 'TCP', port: 5432 }] }],
      egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }] }],
      policyTypes: ['Ingress', 'Egress'],
    });
    const deny = await api.post(`${NET}/namespaces/default/networkpolicies`, netpol('deny', {}));
    expect(deny.body.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress'] });
  });

  test('validation: policy types, ports, peers and ip blocks', async () => {
    const res = await api.post(
      `${NET}/namespaces/default/networkpolicies`,
      netpol('bad', {
        ingress: [
          {
            ports: [
              { protocol: 'ICMP', port: 70000 },
              { port: 'http', endPort: 90 },
            ],
            from: [{}, { ipBlock: { cidr: '10.0.0.0/8', except: ['192.168.0.0/16'] }, podSelector: {} }, { ipBlock: { cidr: 'nope' } }],
          },
        ],
        policyTypes: ['Ingress', 'Sideways'],
      }),
    );
    expect(res.status).toBe(422);
    expect(causes(res.body)).toEqual([
      'FieldValueNotSupported spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"',
      'FieldValueInvalid spec.ingress[0].ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive',
      'FieldValueInvalid spec.ingress[0].ports[1].endPort: Invalid value: 90: may not be specified when `port` is non-numeric',
      'FieldValueRequired spec.ingress[0].from[0]: Required value: must specify a peer',
      'FieldValueInvalid spec.ingress[0].from[1].ipBlock.except[0]: Invalid value: "192.168.0.0/16": must be a strict subset of `cidr`',
      'FieldValueForbidden spec.ingress[0].from[1]: Forbidden: may not specify both ipBlock and another peer',
      'FieldValueInvalid spec.ingress[0].from[2].ipBlock.cidr: Invalid value: "nope": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
      'FieldValueNotSupported spec.policyTypes[1]: Unsupported value: "Sideways": supported values: "Ingress", "Egress"',
    ]);
  });

  test('ip blocks as StrictIPCIDRValidation reads them (beta, on in 1.36)', async () => {
    const res = await api.post(
      `${NET}/namespaces/default/networkpolicies`,
      netpol('strict', {
        egress: [
          {
            to: [{ ipBlock: { cidr: '10.0.0.1/8', except: ['10.01.0.0/16'] } }, { ipBlock: { cidr: 'fd00::/8', except: ['::ffff:10.2.0.0/112'] } }],
          },
        ],
      }),
    );
    expect(causes(res.body)).toEqual([
      'FieldValueInvalid spec.egress[0].to[0].ipBlock.cidr: Invalid value: "10.0.0.1/8": must not have bits set beyond the prefix length',
      'FieldValueInvalid spec.egress[0].to[0].ipBlock.except[0]: Invalid value: "10.01.0.0/16": must not have leading 0s in IP or prefix length',
      'FieldValueInvalid spec.egress[0].to[1].ipBlock.except[0]: Invalid value: "::ffff:10.2.0.0/112": must not have an IPv4-mapped IPv6 address',
      'FieldValueInvalid spec.egress[0].to[1].ipBlock.except[0]: Invalid value: "::ffff:10.2.0.0/112": must be a strict subset of `cidr`',
    ]);
  });
});

describe('poddisruptionbudgets', () => {
  test('created with a zero status; minAvailable and maxUnavailable are exclusive and int-or-percent', async () => {
    const res = await api.post(
      `${POLICY}/namespaces/default/poddisruptionbudgets`,
      pdb('web', { minAvailable: '50%', selector: { matchLabels: { app: 'web' } } }),
    );
    expect(res.status).toBe(201);
    expect(res.body.metadata.generation).toBe(1);
    expect(res.body.status).toEqual({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
    const bad = await api.post(
      `${POLICY}/namespaces/default/poddisruptionbudgets`,
      pdb('bad', { minAvailable: -1, maxUnavailable: '120%', selector: { matchExpressions: [{ key: 'app', operator: 'Near' }] } }),
    );
    expect(bad.status).toBe(422);
    expect(causes(bad.body)).toEqual([
      expect.stringMatching(/^FieldValueInvalid spec: Invalid value: .*: minAvailable and maxUnavailable cannot be both set$/),
      'FieldValueInvalid spec.minAvailable: Invalid value: -1: must be greater than or equal to 0',
      'FieldValueInvalid spec.maxUnavailable: Invalid value: "120%": must not be greater than 100%',
      'FieldValueInvalid spec.selector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator',
    ]);
  });

  test('status through its subresource; spec changes bump the generation', async () => {
    const path = `${POLICY}/namespaces/default/poddisruptionbudgets/web`;
    const status = { disruptionsAllowed: 1, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, observedGeneration: 1 };
    const res = await api.patch(`${path}/status`, { status }, 'application/merge-patch+json');
    expect(res.status).toBe(200);
    expect(res.body.status).toEqual(status);
    const spec = await api.patch(path, { spec: { minAvailable: 2 }, status: { disruptionsAllowed: 9 } }, 'application/merge-patch+json');
    expect(spec.body.metadata.generation).toBe(2);
    expect(spec.body.status).toEqual(status);
    const table = await api.get(path, { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' });
    expect(table.body.rows[0].cells.slice(0, 4)).toEqual(['web', '2', 'N/A', 1]);
  });

  test('protobuf in and out: an int minAvailable stays an int, a percent a string', async () => {
    for (const [name, minAvailable] of [
      ['proto-int', 1],
      ['proto-pct', '25%'],
    ] as const) {
      const res = await fetch(`${server.url}${POLICY}/namespaces/default/poddisruptionbudgets`, {
        method: 'POST',
        headers: { 'Content-Type': PROTOBUF, Accept: PROTOBUF },
        body: encodeProtobuf(pdb(name, { minAvailable, selector: { matchLabels: { app: 'web' } } })),
      });
      expect(res.status).toBe(201);
      expect(decodeProtobuf(Buffer.from(await res.arrayBuffer()))).toMatchObject({ spec: { minAvailable } });
      expect((await api.get(`${POLICY}/namespaces/default/poddisruptionbudgets/${name}`)).body.spec.minAvailable).toBe(minAvailable);
    }
  });
});
