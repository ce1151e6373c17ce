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
