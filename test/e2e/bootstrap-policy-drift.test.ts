import { readFileSync } from 'node:fs';
import path from 'node:path';
import { kubectl, serverProcessForFile } from '../harness/process';

// Every role and binding of kube's bootstrap policy, as a fresh kapi serves them, against
// test/fixtures/bootstrap-policy.txt (kube's bootstrappolicy testdata; the controllers' roles and
// system:monitoring are 1.36's, the others 1.34's): nothing missing,
// nothing extra, rules in kube's order. Then the checks kube's components make with them.

const kapi = serverProcessForFile();
const k = (...args: string[]) => kubectl(kapi.url, args);

type Obj = Record<string, unknown>;
const BOOTSTRAP_META = { labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } };
const RBAC_GROUP = 'rbac.authorization.k8s.io';

const list = (csv: string): string[] => csv.split(',').map((s) => (s === '""' ? '' : s));

function parseRule(line: string): Obj {
  const [first, ...rest] = line.trim().split(' ');
  if (first === 'url') return { nonResourceURLs: list(rest[0]), verbs: list(rest[1]) };
  const [resources, verbs, names] = rest;
  return { apiGroups: list(first), resources: list(resources), verbs: list(verbs), ...(names ? { resourceNames: list(names) } : {}) };
}

function parseSubject(text: string): Obj {
  const [kind, ...nameParts] = text.split(':');
  const name = nameParts.join(':');
  if (kind === 'ServiceAccount') {
    const [namespace, saName] = name.split('/');
    return { kind, name: saName, namespace };
  }
  return { kind, apiGroup: RBAC_GROUP, name };
}

/** The fixture's objects by kind, each keyed `<namespace>/<name>` as kapi's are below. */
function expectedPolicy(): Record<string, Map<string, Obj>> {
  const byKind: Record<string, Map<string, Obj>> = { ClusterRole: new Map(), ClusterRoleBinding: new Map(), Role: new Map(), RoleBinding: new Map() };
  const text = readFileSync(path.join(__dirname, '../fixtures/bootstrap-policy.txt'), 'utf8');
  let current: Obj | null = null;
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    if (line.startsWith('  ')) {
      (current!.rules as Obj[]).push(parseRule(line));
      continue;
    }
    const [kind, qualified, ...rest] = line.split(' ');
    const [namespace, name] = qualified.includes('/') ? qualified.split('/') : ['', qualified];
    const metadata: Obj = { name, ...(namespace ? { namespace } : {}), ...structuredClone(BOOTSTRAP_META) };
    let obj: Obj;
    if (kind === 'ClusterRole' || kind === 'Role') {
      obj = { kind, metadata, rules: [] };
      for (const option of rest) {
        const [key, value] = option.split('=');
        if (key === 'label') (metadata.labels as Obj)[value] = 'true';
        if (key === 'aggregate') obj.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [value]: 'true' } }] };
      }
      current = obj;
    } else {
      const [roleName, ...subjects] = rest;
      obj = { kind, metadata, roleRef: { apiGroup: RBAC_GROUP, kind: kind === 'RoleBinding' ? 'Role' : 'ClusterRole', name: roleName } };
      if (subjects.length > 0) obj.subjects = subjects.map(parseSubject);
      current = null;
    }
    byKind[kind].set(`${namespace}/${name}`, obj);
  }
  return byKind;
}

/** What kapi serves, less what the server sets on every object. */
async function served(resource: string): Promise<Map<string, Obj>> {
  const res = await k('get', resource, '-A', '-l', 'kubernetes.io/bootstrapping=rbac-defaults', '-o', 'json');
  expect(res.stderr).toBe('');
  const objects = new Map<string, Obj>();
  for (const item of JSON.parse(res.stdout).items as Obj[]) {
    const { name, namespace, labels, annotations } = item.metadata as Obj;
    const obj: Obj = { ...item, metadata: { name, ...(namespace ? { namespace } : {}), labels, annotations } };
    delete obj.apiVersion;
    objects.set(`${namespace ?? ''}/${String(name)}`, obj);
  }
  return objects;
}

test("every bootstrap role and binding is kube's (the controllers' 1.36's), object for object and rule for rule", async () => {
  const expected = expectedPolicy();
  for (const [kind, resource] of [
    ['ClusterRole', 'clusterroles'],
    ['ClusterRoleBinding', 'clusterrolebindings'],
    ['Role', 'roles'],
    ['RoleBinding', 'rolebindings'],
  ]) {
    const want = expected[kind];
    const have = await served(resource);
    expect([kind, [...have.keys()].sort()]).toEqual([kind, [...want.keys()].sort()]);
    for (const [key, obj] of want) {
      const got = structuredClone(have.get(key)!);
      // An aggregated role's rules are the aggregation controller's, gathered from the roles it selects.
      if (obj.aggregationRule) delete got.rules;
      if (obj.aggregationRule) delete obj.rules;
      expect([key, got]).toEqual([key, obj]);
    }
  }
});

test("system:monitoring is 1.36's: ComponentFlagz and ComponentStatusz (beta, on since 1.36) add /flagz and /statusz to 1.34's rule", async () => {
  const res = await k('get', 'clusterrole', 'system:monitoring', '-o', 'json');
  expect(res.stderr).toBe('');
  expect(JSON.parse(res.stdout).rules).toEqual([
    { nonResourceURLs: ['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*'], verbs: ['get'] },
    { nonResourceURLs: ['/flagz'], verbs: ['get'] },
    { nonResourceURLs: ['/statusz'], verbs: ['get'] },
  ]);
});

test.each([
  [['get', '/statusz', '--as=prometheus', '--as-group=system:monitoring'], 'yes'],
  [['get', '/flagz', '--as=prometheus', '--as-group=system:monitoring'], 'yes'],
  [['get', '/statusz', '--as=prometheus'], 'no'],
  [['create', 'pods', '--subresource=binding', '--as=system:kube-scheduler'], 'yes'],
  [['get', 'leases/kube-scheduler', '-n', 'kube-system', '--as=system:kube-scheduler'], 'yes'],
  [['delete', 'leases/kube-scheduler', '-n', 'kube-system', '--as=system:kube-scheduler'], 'no'],
  [['patch', 'persistentvolumes', '--as=system:kube-scheduler'], 'yes'],
  [['delete', 'nodes', '--as=system:kube-scheduler'], 'no'],
  [['list', 'replicasets.apps', '-A', '--as=system:kube-controller-manager'], 'yes'],
  [['create', 'pods', '--as=system:kube-controller-manager'], 'no'],
  [['create', 'replicasets.apps', '--as=system:serviceaccount:kube-system:deployment-controller'], 'yes'],
  [['update', 'deployments.apps', '--subresource=status', '--as=system:serviceaccount:kube-system:deployment-controller'], 'yes'],
  [['create', 'pods', '--as=system:serviceaccount:kube-system:deployment-controller'], 'no'],
  [['delete', 'jobs.batch', '--as=system:serviceaccount:kube-system:ttl-after-finished-controller'], 'yes'],
  [['patch', 'pods', '--subresource=status', '--as=system:serviceaccount:kube-system:pod-garbage-collector'], 'yes'],
  [['update', 'pods', '--subresource=status', '--as=system:serviceaccount:kube-system:pod-garbage-collector'], 'no'],
  [['list', 'endpointslices.discovery.k8s.io', '--as=system:kube-proxy'], 'yes'],
  [['create', 'certificatesigningrequests.certificates.k8s.io', '--as=bootstrap', '--as-group=system:bootstrappers'], 'no'],
  [['patch', 'resourceclaims.resource.k8s.io', '--subresource=binding', '-A', '--as=system:serviceaccount:kube-system:resource-claim-controller'], 'yes'],
  [['delete', 'pods', '-A', '--as=system:serviceaccount:kube-system:device-taint-eviction-controller'], 'yes'],
])('kubectl auth can-i %j: %s', async (args, answer) => {
  const res = await k('auth', 'can-i', ...args);
  expect(res.stdout.trim()).toBe(answer);
});
