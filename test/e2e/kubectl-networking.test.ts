import { kubectl, serverProcessForFile } from '../harness/process';

/** kubectl's ingress and PDB commands, and the network policy and ingress class manifests charts ship. */

const kapi = serverProcessForFile();
const k = (...args: string[]) => kubectl(kapi.url, args);

const MANIFEST = `apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
spec:
  controller: k8s.io/ingress-nginx
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: web
  namespace: default
spec:
  podSelector:
    matchLabels:
      app: web
  ingress:
  - from:
    - namespaceSelector:
        matchLabels:
          team: ops
    ports:
    - port: 8080
      protocol: TCP
`;

test('kubectl create ingress and poddisruptionbudget (protobuf bodies); get prints their columns', async () => {
  expect((await k('create', 'ingress', 'web', '--class=nginx', '--rule=example.com/*=web:80')).stdout.trim()).toBe('ingress.networking.k8s.io/web created');
  expect((await k('create', 'poddisruptionbudget', 'web', '--selector=app=web', '--min-available=1')).stdout.trim()).toBe(
    'poddisruptionbudget.policy/web created',
  );

  const ing = JSON.parse((await k('get', 'ing', 'web', '-o', 'json')).stdout);
  expect(ing.spec).toEqual({
    ingressClassName: 'nginx',
    rules: [{ host: 'example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }],
  });
  const budget = JSON.parse((await k('get', 'pdb', 'web', '-o', 'json')).stdout);
  expect(budget.spec).toEqual({ minAvailable: 1, selector: { matchLabels: { app: 'web' } } });

  expect((await k('get', 'ingress')).stdout).toMatch(/^NAME\s+CLASS\s+HOSTS\s+ADDRESS\s+PORTS\s+AGE\nweb\s+nginx\s+example.com\s+80\s+\S+\n$/);
  expect((await k('get', 'pdb')).stdout).toMatch(/^NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE\nweb\s+1\s+N\/A\s+0\s+\S+\n$/);
});

// The port names its protocol, as charts do: kubectl's three-way patch replaces an atomic list that
// differs from the live one, so a defaulted protocol would make every apply "configured" (on kube-apiserver too).
test('kubectl apply of an ingress class and a network policy, twice: the second time unchanged', async () => {
  const first = await kubectl(kapi.url, ['apply', '-f', '-'], MANIFEST);
  expect(first.stderr).toBe('');
  expect(first.stdout.trim().split('\n')).toEqual(['ingressclass.networking.k8s.io/nginx created', 'networkpolicy.networking.k8s.io/web created']);
  const second = await kubectl(kapi.url, ['apply', '-f', '-'], MANIFEST);
  expect(second.stdout.trim().split('\n')).toEqual(['ingressclass.networking.k8s.io/nginx unchanged', 'networkpolicy.networking.k8s.io/web unchanged']);

  const policy = JSON.parse((await k('get', 'netpol', 'web', '-o', 'json')).stdout);
  expect(policy.spec.policyTypes).toEqual(['Ingress']);
  expect(policy.spec.ingress[0].ports).toEqual([{ port: 8080, protocol: 'TCP' }]);
  expect((await k('get', 'netpol')).stdout).toMatch(/^NAME\s+POD-SELECTOR\s+AGE\nweb\s+app=web\s+\S+\n$/);
  expect((await k('get', 'ingressclass')).stdout).toMatch(/^NAME\s+CONTROLLER\s+PARAMETERS\s+AGE\nnginx\s+k8s.io\/ingress-nginx\s+<none>\s+\S+\n$/);
});

test('kubectl get ingress,pdb,netpol lists the three kinds together', async () => {
  const out = (await k('get', 'ingress,pdb,netpol', '-o', 'name')).stdout.trim().split('\n');
  expect(out).toEqual(['ingress.networking.k8s.io/web', 'poddisruptionbudget.policy/web', 'networkpolicy.networking.k8s.io/web']);
});

test('an ingress path without a pathType is refused with the field named', async () => {
  const res = await kubectl(
    kapi.url,
    ['apply', '-f', '-'],
    'apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: bad\nspec:\n  rules:\n  - http:\n      paths:\n      - path: /\n        backend:\n          service:\n            name: web\n            port:\n              number: 80\n',
  );
  expect(res.code).not.toBe(0);
  expect(res.stderr).toContain('spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified');
});

test('kubectl delete removes them', async () => {
  const res = await k('delete', 'ingress/web', 'pdb/web', 'netpol/web', 'ingressclass/nginx');
  expect(res.stdout.trim().split('\n')).toEqual([
    'ingress.networking.k8s.io "web" deleted',
    'poddisruptionbudget.policy "web" deleted',
    'networkpolicy.networking.k8s.io "web" deleted',
    'ingressclass.networking.k8s.io "nginx" deleted',
  ]);
  expect((await k('get', 'ingress,pdb,netpol', '-o', 'name')).stdout.trim()).toBe('');
});

// kubectl create service and kubectl expose: the Services they write, the columns of get, and
// kube-apiserver's refusals as kubectl prints them.
describe('kubectl create service and expose', () => {
  const spec = async (name: string) => JSON.parse((await k('get', 'svc', name, '-o', 'json')).stdout).spec;

  test('each type: ports named from --tcp, the selector from the name, node ports, the external name', async () => {
    expect((await k('create', 'service', 'clusterip', 'cs', '--tcp=80:8080,443')).stdout).toBe('service/cs created\n');
    const cs = await spec('cs');
    expect(cs.ports).toEqual([
      { name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 },
      { name: '443', protocol: 'TCP', port: 443, targetPort: 443 },
    ]);
    expect(cs).toMatchObject({
      selector: { app: 'cs' },
      type: 'ClusterIP',
      sessionAffinity: 'None',
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: 'Cluster',
    });
    expect(cs.clusterIPs).toEqual([cs.clusterIP]);

    expect((await k('create', 'service', 'nodeport', 'ns', '--tcp=80:8080', '--node-port=30080')).stdout).toBe('service/ns created\n');
    expect((await spec('ns')).ports).toEqual([{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30080 }]);
    expect((await k('create', 'service', 'loadbalancer', 'lb', '--tcp=80')).stdout).toBe('service/lb created\n');
    expect(await spec('lb')).toMatchObject({ type: 'LoadBalancer', externalTrafficPolicy: 'Cluster', allocateLoadBalancerNodePorts: true });
    expect((await k('create', 'service', 'externalname', 'ext', '--external-name=db.example.com')).stdout).toBe('service/ext created\n');
    expect((await k('create', 'service', 'clusterip', 'hl', '--clusterip=None')).stdout).toBe('service/hl created\n');
    expect(await spec('hl')).toMatchObject({ clusterIP: 'None', clusterIPs: ['None'], ipFamilyPolicy: 'SingleStack', ipFamilies: ['IPv4'] });

    const lbPort = (await spec('lb')).ports[0].nodePort as number;
    const table = (await k('get', 'svc', 'cs', 'ns', 'lb', 'ext', 'hl')).stdout.split('\n');
    expect(table[0]).toMatch(/^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE$/);
    expect(table[1]).toMatch(/^cs\s+ClusterIP\s+10\.\d+\.\d+\.\d+\s+<none>\s+80\/TCP,443\/TCP\s+\S+$/);
    expect(table[2]).toMatch(/^ns\s+NodePort\s+10\.\d+\.\d+\.\d+\s+<none>\s+80:30080\/TCP\s+\S+$/);
    expect(table[3]).toMatch(new RegExp(`^lb\\s+LoadBalancer\\s+10\\.\\d+\\.\\d+\\.\\d+\\s+<pending>\\s+80:${lbPort}/TCP\\s+\\S+$`));
    expect(table[4]).toMatch(/^ext\s+ExternalName\s+<none>\s+db\.example\.com\s+<none>\s+\S+$/);
    expect(table[5]).toMatch(/^hl\s+ClusterIP\s+None\s+<none>\s+<none>\s+\S+$/);
  });

  test("kube-apiserver's refusals: a duplicate port, a node port taken or out of range, a cluster IP taken or outside the range", async () => {
    const dup = await k('create', 'svc', 'clusterip', 'two-ports', '--tcp', '80:80,443,443');
    expect(dup.code).not.toBe(0);
    expect(dup.stderr).toBe(
      'error: failed to create ClusterIP service: Service "two-ports" is invalid: [spec.ports[2].name: Duplicate value: "443", spec.ports[2]: Duplicate value: ' +
        '{"Name":"","Protocol":"TCP","AppProtocol":null,"Port":443,"TargetPort":0,"NodePort":0}]\n',
    );
    expect((await k('create', 'service', 'nodeport', 'ns2', '--tcp=80:8080', '--node-port=30080')).stderr).toBe(
      'error: failed to create NodePort service: Service "ns2" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is already allocated\n',
    );
    expect((await k('create', 'service', 'nodeport', 'ns3', '--tcp=80:8080', '--node-port=8080')).stderr).toBe(
      'error: failed to create NodePort service: Service "ns3" is invalid: spec.ports[0].nodePort: Invalid value: 8080: provided port is not in the valid range. The range of valid ports is 30000-32767\n',
    );
    expect((await k('create', 'service', 'clusterip', 'fixed', '--clusterip=10.96.100.100', '--tcp=80')).stdout).toBe('service/fixed created\n');
    expect((await k('create', 'service', 'clusterip', 'fixed2', '--clusterip=10.96.100.100', '--tcp=80')).stderr).toBe(
      'error: failed to create ClusterIP service: Service "fixed2" is invalid: spec.clusterIPs: Invalid value: ["10.96.100.100"]: failed to allocate IP 10.96.100.100: provided IP is already allocated\n',
    );
    expect((await k('create', 'service', 'clusterip', 'outside', '--clusterip=192.0.2.1', '--tcp=80')).stderr).toBe(
      'error: failed to create ClusterIP service: Service "outside" is invalid: spec.clusterIPs: Invalid value: ["192.0.2.1"]: failed to allocate IP 192.0.2.1: the provided network does not match the current range\n',
    );
    // Changing it later is refused the same way kube refuses it.
    const patched = await k('patch', 'svc', 'fixed', '-p', '{"spec":{"clusterIP":"10.96.100.101"}}');
    expect(patched.stderr).toBe('The Service "fixed" is invalid: spec.clusterIPs[0]: Invalid value: ["10.96.100.101"]: may not change once set\n');
  });

  test('a dry run on the server takes nothing and shows placeholder node ports', async () => {
    const dry = await k('create', 'service', 'nodeport', 'dry', '--tcp=80', '--dry-run=server', '-o', 'jsonpath={.spec.ports[0].nodePort}');
    expect(dry.stdout).toBe('32769');
    expect((await k('get', 'svc', 'dry')).stderr).toBe('Error from server (NotFound): services "dry" not found\n');
  });

  test('kubectl expose of a deployment and a pod: ports, target ports, types and options', async () => {
    expect((await k('create', 'deployment', 'web', '--image=nginx', '--port=80')).code).toBe(0);
    expect((await k('expose', 'deployment', 'web', '--port=8080', '--target-port=80')).stdout).toBe('service/web exposed\n');
    expect(await spec('web')).toMatchObject({ ports: [{ port: 8080, protocol: 'TCP', targetPort: 80 }], selector: { app: 'web' }, type: 'ClusterIP' });
    expect((await k('expose', 'deployment', 'web', '--name=web-np', '--type=NodePort', '--port=80')).stdout).toBe('service/web-np exposed\n');
    expect(await spec('web-np')).toMatchObject({ type: 'NodePort', externalTrafficPolicy: 'Cluster' });
    expect((await k('expose', 'deployment', 'web', '--name=web-aff', '--port=80', '--session-affinity=ClientIP')).code).toBe(0);
    expect((await spec('web-aff')).sessionAffinityConfig).toEqual({ clientIP: { timeoutSeconds: 10800 } });
    expect((await k('expose', 'deployment', 'web', '--name=web-ext', '--port=80', '--external-ip=198.51.100.7')).code).toBe(0);
    expect((await k('get', 'svc', 'web-ext', '-o', 'wide')).stdout).toMatch(/\nweb-ext\s+ClusterIP\s+\S+\s+198\.51\.100\.7\s+80\/TCP\s+\S+\s+app=web\n$/);
    const bad = await k('expose', 'deployment', 'web', '--name=web-bad', '--port=80', '--type=Foo');
    expect(bad.stderr).toBe(
      'The Service "web-bad" is invalid: spec.type: Unsupported value: "Foo": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"\n',
    );
    expect((await k('run', 'single', '--image=nginx', '--port=9090', '-l', 'app=single')).code).toBe(0);
    expect((await k('expose', 'pod', 'single', '--protocol=UDP')).stdout).toBe('service/single exposed\n');
    expect((await spec('single')).ports).toEqual([{ protocol: 'UDP', port: 9090, targetPort: 9090 }]);
    expect((await k('delete', 'svc', 'cs', 'ns', 'lb', 'ext', 'hl', 'fixed', 'web', 'web-np', 'web-aff', 'web-ext', 'single')).code).toBe(0);
  });
});
