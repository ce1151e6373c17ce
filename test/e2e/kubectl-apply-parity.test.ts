import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { applicableBundle, resourceVersions } from '../harness/bundles';
import { kubectl, serverProcessForFile } from '../harness/process';

/**
 * Real workloads through real kubectl: operators' install bundles (test/fixtures/bundles, plain
 * YAML from their repositories) applied client-side, then server-side without --force-conflicts,
 * then again unchanged both ways as no-ops; server-side apply of every associative list with a
 * defaulted key; what Go's encoder writes; a List of custom objects kubectl validates.
 */

const kapi = serverProcessForFile();
const dir = mkdtempSync(path.join(tmpdir(), 'kapi-parity-'));
const k = (...args: string[]) => kubectl(kapi.url, args);
async function ok(args: string[]): Promise<string> {
  const res = await k(...args);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${res.stderr}`);
  return res.stdout;
}

describe.each([
  ['ingress-nginx.yaml', null],
  ['argo-cd.yaml', 'argocd'],
  ['prometheus-operator.yaml', null],
] as const)('the %s bundle', (name, namespace) => {
  test('client-side apply, server-side apply without --force-conflicts, then unchanged re-applies write nothing', async () => {
    const file = applicableBundle(dir, name);
    const ns = namespace ? ['-n', namespace] : [];
    if (namespace) await ok(['create', 'namespace', namespace]);
    await ok(['apply', '-f', file, ...ns]);
    await ok(['apply', '--server-side', '-f', file, ...ns]);
    const before = await resourceVersions(k, file, ns);
    expect(Object.keys(before).length).toBeGreaterThan(5);
    const again = await ok(['apply', '--server-side', '-f', file, ...ns]);
    expect(again).toMatch(/serverside-applied/);
    expect(await resourceVersions(k, file, ns)).toEqual(before);
    // Back to client-side apply: kubectl rewrites its annotation once (it writes `annotations: {}` where the server's copy has none),
    // then writes nothing (kubectl still says "configured" where its patch resends an atomic list the server defaults).
    await ok(['apply', '-f', file, ...ns]);
    const settled = await resourceVersions(k, file, ns);
    await ok(['apply', '-f', file, ...ns]);
    expect(await resourceVersions(k, file, ns)).toEqual(settled);
  }, 120_000);
});

const WORKLOAD = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: lists
  namespace: default
spec:
  selector:
    matchLabels: {app: lists}
  template:
    metadata:
      labels: {app: lists}
    spec:
      hostAliases:
      - ip: 10.0.0.1
        hostnames: [a.local]
      tolerations:
      - key: dedicated
        operator: Equal
        value: infra
        effect: NoSchedule
      volumes:
      - name: cache
        emptyDir: {}
      imagePullSecrets:
      - name: registry
      containers:
      - name: web
        image: nginx:1.27
        ports:
        - containerPort: 80
        - containerPort: 53
          protocol: UDP
        env:
        - name: MODE
          value: fast
        volumeMounts:
        - name: cache
          mountPath: /cache
---
apiVersion: v1
kind: Service
metadata:
  name: lists
  namespace: default
spec:
  selector: {app: lists}
  ports:
  - name: http
    port: 80
  - name: dns
    port: 53
    protocol: UDP
`;

test('server-side apply twice: container and service ports (protocol defaulted), env, volumes, tolerations, host aliases', async () => {
  const file = path.join(dir, 'lists.yaml');
  writeFileSync(file, WORKLOAD);
  await ok(['apply', '--server-side', '-f', file]);
  const first = JSON.parse(await ok(['get', '-f', file, '-o', 'json', '--show-managed-fields'])) as { items: Record<string, any>[] };
  for (let round = 0; round < 2; round++) await ok(['apply', '--server-side', '-f', file]);
  const after = JSON.parse(await ok(['get', '-f', file, '-o', 'json', '--show-managed-fields'])) as { items: Record<string, any>[] };
  expect(after.items.map((o) => o.metadata.resourceVersion)).toEqual(first.items.map((o) => o.metadata.resourceVersion));
  const [deployment, service] = after.items;
  expect(deployment.metadata.generation).toBe(1);
  const pod = deployment.spec.template.spec;
  expect(pod.containers[0].ports).toEqual([
    { containerPort: 80, protocol: 'TCP' },
    { containerPort: 53, protocol: 'UDP' },
  ]);
  expect(pod.containers[0].env).toEqual([{ name: 'MODE', value: 'fast' }]);
  expect(pod.volumes).toHaveLength(1);
  expect(pod.tolerations).toHaveLength(1);
  expect(pod.hostAliases).toHaveLength(1);
  expect(service.spec.ports.map((p: { port: number; protocol: string }) => `${p.port}/${p.protocol}`)).toEqual(['80/TCP', '53/UDP']);
  const applied = (o: Record<string, any>) => o.metadata.managedFields.find((m: { manager: string }) => m.manager === 'kubectl').fieldsV1;
  const container = applied(deployment)['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"web"}'];
  expect(Object.keys(container['f:ports']).sort()).toEqual(['k:{"containerPort":53,"protocol":"UDP"}', 'k:{"containerPort":80,"protocol":"TCP"}']);
  expect(Object.keys(applied(service)['f:spec']['f:ports']).sort()).toEqual(['k:{"port":53,"protocol":"UDP"}', 'k:{"port":80,"protocol":"TCP"}']);
  // Plain structs carry no "." of their own.
  expect(applied(deployment)['f:spec']['.']).toBeUndefined();
  expect(applied(deployment)['f:spec']['f:template']['.']).toBeUndefined();
});

test('a Service updated by a manifest without clusterIP or node ports keeps what was allocated', async () => {
  const svc = (extra: string) =>
    `apiVersion: v1\nkind: Service\nmetadata:\n  name: kept\n  namespace: default\nspec:\n  type: LoadBalancer\n  externalTrafficPolicy: Local\n  selector: {app: kept}\n  ports:\n  - name: http\n    port: 80${extra}\n`;
  const file = path.join(dir, 'kept.yaml');
  writeFileSync(file, svc(''));
  await ok(['apply', '-f', file]);
  const created = JSON.parse(await ok(['get', 'service', 'kept', '-o', 'json']));
  expect(created.spec.healthCheckNodePort).toEqual(expect.any(Number));
  await ok(['apply', '--server-side', '-f', file]);
  writeFileSync(file, svc('\n  - name: https\n    port: 443'));
  await ok(['replace', '-f', file]);
  const replaced = JSON.parse(await ok(['get', 'service', 'kept', '-o', 'json']));
  expect(replaced.spec.clusterIP).toBe(created.spec.clusterIP);
  expect(replaced.spec.clusterIPs).toEqual(created.spec.clusterIPs);
  expect(replaced.spec.ipFamilies).toEqual(created.spec.ipFamilies);
  expect(replaced.spec.healthCheckNodePort).toBe(created.spec.healthCheckNodePort);
  expect(replaced.spec.ports[0].nodePort).toBe(created.spec.ports[0].nodePort);
  expect(replaced.spec.ports[1].nodePort).toEqual(expect.any(Number));
});

test("a new DaemonSet's status, as Go writes it", async () => {
  const ds = `apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent\n  namespace: default\nspec:\n  selector:\n    matchLabels: {app: agent}\n  template:\n    metadata:\n      labels: {app: agent}\n    spec:\n      containers:\n      - name: a\n        image: busybox\n`;
  const res = await kubectl(kapi.url, ['create', '-f', '-', '-o', 'json'], ds);
  expect(res.code).toBe(0);
  expect(JSON.parse(res.stdout).status).toEqual({ currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 });
});

test('a List of custom objects whose CRD preserves unknown fields at the root: kubectl validates nothing it does not know', async () => {
  const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: bags.parity.example.com
spec:
  group: parity.example.com
  scope: Namespaced
  names: {plural: bags, singular: bag, kind: Bag, listKind: BagList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
`;
  await kubectl(kapi.url, ['apply', '-f', '-'], crd);
  await ok(['wait', '--for=condition=Established', 'crd/bags.parity.example.com', '--timeout=30s']);
  const v2 = (await (await fetch(`${kapi.url}/openapi/v2`, { headers: { Accept: 'application/json' } })).json()) as {
    definitions: Record<string, Record<string, unknown>>;
  };
  const definition = Object.values(v2.definitions as Record<string, Record<string, unknown>>).find((d) =>
    (d['x-kubernetes-group-version-kind'] as { group: string; kind: string }[] | undefined)?.some((g) => g.group === 'parity.example.com' && g.kind === 'Bag'),
  )!;
  expect(definition.type).toBe('object');
  expect(definition.properties).toBeUndefined();
  const list = `apiVersion: v1\nkind: List\nitems:\n- apiVersion: parity.example.com/v1\n  kind: Bag\n  metadata: {name: one, namespace: default}\n  someField: anything\n  spec: {size: 1}\n`;
  const res = await kubectl(kapi.url, ['apply', '-f', '-'], list);
  expect(res.stderr).toBe('');
  expect(res.stdout.trim()).toBe('bag.parity.example.com/one created');
});
