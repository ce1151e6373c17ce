import { request } from 'node:https';
import { eventually } from '../harness/etcd-keys';
import { grantClusterRole, grantRole, startSecureKapi, type SecureKapi } from '../harness/secure-process';

// Path and scope confusion, tried over TLS by alice, whose only grant is a Role in team-a allowing
// every verb on every resource there: what she may reach is exactly what kube-apiserver's routes
// and RBAC give such a user.

const ALICE = 'alice-token-5c0pe-c0nfu5i0n';
/** Sam may impersonate the service accounts of team-a, and nothing else. */
const SAM = 'sam-token-5c0pe-c0nfu5i0n';
let kapi: SecureKapi;

const NOT_FOUND = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'the server could not find the requested resource',
  reason: 'NotFound',
  details: {},
  code: 404,
};
const status = (code: number, reason: string, message: string) => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message,
  reason,
  code,
});

/** A request whose path goes on the wire byte for byte (no client-side `..` resolution or re-encoding). */
function raw(method: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const url = new URL(kapi.process.secureUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        ca: kapi.ca,
        agent: false,
        headers: { Authorization: `Bearer ${ALICE}`, Accept: 'application/json', ...headers },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}
const asAlice = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => kapi.asToken(ALICE, method, path, body, headers);

const gizmos = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gizmos.scope.example.com' },
  spec: {
    group: 'scope.example.com',
    scope: 'Cluster',
    names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};

beforeAll(async () => {
  kapi = await startSecureKapi([`${ALICE},alice,uid-alice`, `${SAM},sam,uid-sam`]);
  for (const name of ['team-a', 'team-b']) {
    expect((await kapi.asAdmin('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } })).status).toBe(201);
  }
  expect((await kapi.asAdmin('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', gizmos)).status).toBe(201);
  expect((await kapi.asAdmin('POST', '/api/v1/namespaces/team-a/configmaps', { metadata: { name: 'x' }, data: { a: 'b' } })).status).toBe(201);
  expect((await kapi.asAdmin('POST', '/api/v1/namespaces/team-b/configmaps', { metadata: { name: 'x' }, data: { secret: 'of team-b' } })).status).toBe(201);
  await grantRole(kapi, ALICE, 'alice', 'team-a', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }], '/api/v1/namespaces/team-a/configmaps');
  await eventually('gizmos are served', async () => ((await kapi.asAdmin('GET', '/apis/scope.example.com/v1/gizmos')).status === 200 ? true : undefined));
}, 60_000);

afterAll(async () => {
  await kapi?.stop();
});

describe('a cluster-scoped kind under a namespace path', () => {
  test('GET namespaces/team-a/namespaces is a 404, not the list of every namespace', async () => {
    const res = await asAlice('GET', '/api/v1/namespaces/team-a/namespaces');
    expect(res.body).toEqual(NOT_FOUND);
    expect((await asAlice('GET', '/api/v1/watch/namespaces/team-a/namespaces')).body).toEqual(NOT_FOUND);
  });

  test('DELETE, PATCH and GET of namespaces/team-a/namespaces/team-b are 404s, and team-b stays', async () => {
    expect((await asAlice('DELETE', '/api/v1/namespaces/team-a/namespaces/team-b')).body).toEqual(NOT_FOUND);
    expect(
      (
        await asAlice(
          'PATCH',
          '/api/v1/namespaces/team-a/namespaces/team-b',
          { metadata: { labels: { owned: 'alice' } } },
          { 'Content-Type': 'application/merge-patch+json' },
        )
      ).body,
    ).toEqual(NOT_FOUND);
    expect((await asAlice('GET', '/api/v1/namespaces/team-a/namespaces/team-b')).body).toEqual(NOT_FOUND);
    const teamB = await kapi.asAdmin('GET', '/api/v1/namespaces/team-b');
    expect(teamB.status).toBe(200);
    expect(teamB.body.status.phase).toBe('Active');
    expect(teamB.body.metadata.labels.owned).toBeUndefined();
  });

  test("the self forms namespaces/team-a/namespaces/team-a[/status|/finalize] are 404s; the Namespace's own paths serve as kube's do", async () => {
    expect((await asAlice('GET', '/api/v1/namespaces/team-a/namespaces/team-a')).body).toEqual(NOT_FOUND);
    expect((await asAlice('GET', '/api/v1/namespaces/team-a/namespaces/team-a/status')).body).toEqual(NOT_FOUND);
    expect((await asAlice('PUT', '/api/v1/namespaces/team-a/namespaces/team-a/finalize', { metadata: { name: 'team-a' } })).body).toEqual(NOT_FOUND);
    // A Role in team-a covers the Namespace team-a itself (its namespace is its name), as in kube.
    const own = await asAlice('GET', '/api/v1/namespaces/team-a');
    expect([own.status, own.body.metadata.name]).toEqual([200, 'team-a']);
    const ownStatus = await asAlice('GET', '/api/v1/namespaces/team-a/status');
    expect([ownStatus.status, ownStatus.body.kind]).toEqual([200, 'Namespace']);
    // finalize is PUT only, as kube registers it (discovery: verbs [update]).
    for (const method of ['GET', 'PATCH']) {
      expect([
        method,
        (await asAlice(method, '/api/v1/namespaces/team-a/finalize', method === 'PATCH' ? {} : undefined, { 'Content-Type': 'application/merge-patch+json' }))
          .body,
      ]).toEqual([method, { ...status(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'), details: {} }]);
    }
    const other = await asAlice('GET', '/api/v1/namespaces/team-b');
    expect(other.body).toEqual({
      ...status(403, 'Forbidden', 'namespaces "team-b" is forbidden: User "alice" cannot get resource "namespaces" in API group "" in the namespace "team-b"'),
      details: { name: 'team-b', kind: 'namespaces' },
    });
  });

  test('every cluster-scoped resource in discovery, built-in or custom, is a 404 under a namespace, as a collection and by name', async () => {
    const groupVersions = ['/api/v1'];
    for (const group of (await kapi.asAdmin('GET', '/apis')).body.groups) {
      for (const v of group.versions) groupVersions.push(`/apis/${v.groupVersion}`);
    }
    const tried: string[] = [];
    for (const gv of groupVersions) {
      for (const r of (await kapi.asAdmin('GET', gv)).body.resources) {
        if (r.namespaced || r.name.includes('/')) continue;
        tried.push(r.name);
        for (const [method, path] of [
          ['GET', `${gv}/namespaces/team-a/${r.name}`],
          ['GET', `${gv}/namespaces/team-a/${r.name}/x`],
          ['DELETE', `${gv}/namespaces/team-a/${r.name}/x`],
        ]) {
          expect([method, path, (await asAlice(method, path)).body]).toEqual([method, path, NOT_FOUND]);
        }
      }
    }
    expect(tried).toEqual(
      expect.arrayContaining([
        'namespaces',
        'nodes',
        'persistentvolumes',
        'clusterroles',
        'clusterrolebindings',
        'customresourcedefinitions',
        'storageclasses',
        'gizmos',
      ]),
    );
  });

  test('a namespaced kind at the cluster path lists across namespaces for the admin; a Role in one namespace does not grant it', async () => {
    const all = await kapi.asAdmin('GET', '/api/v1/configmaps');
    expect(all.status).toBe(200);
    expect(all.body.items.map((c: any) => c.metadata.namespace)).toEqual(expect.arrayContaining(['team-a', 'team-b']));
    expect((await asAlice('GET', '/api/v1/configmaps')).body).toEqual({
      ...status(403, 'Forbidden', 'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" at the cluster scope'),
      details: { kind: 'configmaps' },
    });
    expect((await asAlice('GET', '/api/v1/configmaps/x')).body).toEqual({
      ...status(403, 'Forbidden', 'configmaps "x" is forbidden: User "alice" cannot get resource "configmaps" in API group "" at the cluster scope'),
      details: { name: 'x', kind: 'configmaps' },
    });
    // A namespaced object has no path outside its namespace.
    expect((await kapi.asAdmin('GET', '/api/v1/configmaps/x')).body).toEqual(NOT_FOUND);
  });
});

describe('path tricks', () => {
  test("`.` and `..` as a name are refused before the store, as kube's key functions refuse them", async () => {
    for (const name of ['..', '.']) {
      for (const method of ['GET', 'DELETE']) {
        expect([method, name, (await raw(method, `/api/v1/namespaces/team-a/configmaps/${name}`)).body]).toEqual([
          method,
          name,
          status(400, 'BadRequest', `Name parameter invalid: "${name}": may not be '${name}'`),
        ]);
      }
    }
    expect((await raw('GET', '/api/v1/namespaces/team-a/configmaps/%2e%2e')).body).toEqual(
      status(400, 'BadRequest', `Name parameter invalid: "..": may not be '..'`),
    );
    expect((await raw('GET', '/api/v1/namespaces/team-a/configmaps/a%25b')).body).toEqual(
      status(400, 'BadRequest', `Name parameter invalid: "a%b": may not contain '%'`),
    );
  });

  test('`..` segments do not climb out of team-a into team-b', async () => {
    for (const path of [
      '/api/v1/namespaces/team-a/../team-b/configmaps',
      '/api/v1/namespaces/team-a/configmaps/../../team-b/configmaps/x',
      '/api/v1/namespaces/team-a/configmaps/x/../../../team-b/configmaps/x',
    ]) {
      expect([path, (await raw('GET', path)).body]).toEqual([path, NOT_FOUND]);
    }
    // RBAC judges the namespace the path names first, as kube's filters run before its routes: `..`, then team-b.
    expect((await raw('GET', '/api/v1/namespaces/../namespaces/team-b/configmaps/x')).status).toBe(403);
    expect((await raw('GET', '/api/v1/namespaces/team-b/configmaps/x/..')).status).toBe(403);
  });

  test('%2F is decoded before the path is split, as Go decodes URL.Path: it names the same objects, never another namespace', async () => {
    const own = await raw('GET', '/api/v1/namespaces/team-a%2Fconfigmaps');
    expect([own.status, own.body.kind, [...new Set(own.body.items.map((c: any) => c.metadata.namespace))]]).toEqual([200, 'ConfigMapList', ['team-a']]);
    expect((await raw('GET', '/api/v1/namespaces/team-b%2Fconfigmaps')).body).toEqual({
      ...status(403, 'Forbidden', 'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "team-b"'),
      details: { kind: 'configmaps' },
    });
    expect((await raw('GET', '/api/v1/namespaces/team-a/configmaps/x%2F..%2F..%2Fteam-b%2Fconfigmaps%2Fx')).body).toEqual(NOT_FOUND);
  });

  test('a subresource a kind does not have, or one with more path after it, is a 404', async () => {
    for (const path of [
      '/api/v1/namespaces/team-a/configmaps/x/status',
      '/api/v1/namespaces/team-a/configmaps/x/status/extra',
      '/api/v1/namespaces/team-a/pods/x/status/extra',
      '/api/v1/namespaces/team-a/pods/x/log/extra',
      '/api/v1/namespaces/team-a/pods/x/bogus',
    ]) {
      expect([path, (await raw('GET', path)).body]).toEqual([path, NOT_FOUND]);
    }
  });
});

describe('impersonation of groups, uids and extra', () => {
  const ssr = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
  const whoAmI = (headers: Record<string, string>) => asAlice('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', ssr, headers);

  beforeAll(async () => {
    // alice may impersonate users, and nothing else.
    await grantClusterRole(kapi, ALICE, 'alice', 'alice-impersonates-users', [{ apiGroups: [''], resources: ['users'], verbs: ['impersonate'] }], {
      method: 'POST',
      path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
      body: ssr,
      headers: { 'Impersonate-User': 'bob' },
    });
  });

  test('impersonating a user alone works; adding system:masters needs impersonate on groups', async () => {
    const asBob = await whoAmI({ 'Impersonate-User': 'bob' });
    expect([asBob.status, asBob.body.status.userInfo]).toEqual([201, { username: 'bob', groups: ['system:authenticated'] }]);
    const res = await whoAmI({ 'Impersonate-User': 'bob', 'Impersonate-Group': 'system:masters' });
    expect(res.body).toEqual({
      ...status(
        403,
        'Forbidden',
        'groups "system:masters" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope',
      ),
      details: { name: 'system:masters', kind: 'groups' },
    });
    const secrets = await asAlice('GET', '/api/v1/namespaces/team-b/configmaps', undefined, {
      'Impersonate-User': 'admin',
      'Impersonate-Group': 'system:masters',
    });
    expect(secrets.status).toBe(403);
  });

  test('a uid needs impersonate on uids.authentication.k8s.io', async () => {
    expect((await whoAmI({ 'Impersonate-User': 'bob', 'Impersonate-Uid': 'uid-of-admin' })).body).toEqual({
      ...status(
        403,
        'Forbidden',
        'uids.authentication.k8s.io "uid-of-admin" is forbidden: User "alice" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope',
      ),
      details: { name: 'uid-of-admin', group: 'authentication.k8s.io', kind: 'uids' },
    });
  });

  test('an extra value needs impersonate on userextras/<key>', async () => {
    expect((await whoAmI({ 'Impersonate-User': 'bob', 'Impersonate-Extra-Scopes': 'everything' })).body).toEqual({
      ...status(
        403,
        'Forbidden',
        'userextras.authentication.k8s.io "everything" is forbidden: User "alice" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope',
      ),
      details: { name: 'everything', group: 'authentication.k8s.io', kind: 'userextras' },
    });
  });

  test('an extra key is unescaped after the header name is lower-cased: an escaped capital is asked for as a capital', async () => {
    expect((await whoAmI({ 'Impersonate-User': 'bob', 'Impersonate-Extra-%41cme': 'x' })).body.message).toBe(
      'userextras.authentication.k8s.io "x" is forbidden: User "alice" cannot impersonate resource "userextras/Acme" in API group "authentication.k8s.io" at the cluster scope',
    );
  });

  test('a service account username with an invalid name is a user, not a service account of that namespace (serviceaccount.SplitUsername)', async () => {
    const rules = [
      { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
    ];
    await grantRole(kapi, SAM, 'sam', 'team-a', rules, '/api/v1/namespaces/team-a/configmaps/x');
    const asSam = (user: string) => kapi.asToken(SAM, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', ssr, { 'Impersonate-User': user });
    const sa = await asSam('system:serviceaccount:team-a:builder');
    expect([sa.status, sa.body.status.userInfo]).toEqual([
      201,
      { username: 'system:serviceaccount:team-a:builder', groups: ['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated'] },
    ]);
    for (const user of ['system:serviceaccount:team-a:Admin', 'system:serviceaccount:team-a:a/b', 'system:serviceaccount:team-a:a:b']) {
      expect((await asSam(user)).body).toEqual({
        ...status(
          403,
          'Forbidden',
          `users ${JSON.stringify(user)} is forbidden: User "sam" cannot impersonate resource "users" in API group "" at the cluster scope`,
        ),
        details: { name: user, kind: 'users' },
      });
    }
  });

  test('a service account of another namespace needs impersonate on serviceaccounts there', async () => {
    expect((await whoAmI({ 'Impersonate-User': 'system:serviceaccount:team-b:default' })).body).toEqual({
      ...status(
        403,
        'Forbidden',
        'serviceaccounts "default" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "team-b"',
      ),
      details: { name: 'default', kind: 'serviceaccounts' },
    });
  });
});

describe('empty path segments, read as RequestInfoFactory.splitPath and go-restful CurlyRouter do', () => {
  const forbidden = (verb: string, name?: string) =>
    status(
      403,
      'Forbidden',
      `configmaps${name ? ` "${name}"` : ''} is forbidden: User "alice" cannot ${verb} resource "configmaps" in API group "" at the cluster scope`,
    );

  test('namespaces//configmaps is the namespace "": authorized at the cluster scope, so 403 for a user of team-a', async () => {
    for (const [method, path, verb, name] of [
      ['GET', '/api/v1/namespaces//configmaps', 'list', undefined],
      ['GET', '/api/v1/namespaces//configmaps/x', 'get', 'x'],
      ['DELETE', '/api/v1/namespaces//configmaps/x', 'delete', 'x'],
      ['DELETE', '/api/v1/namespaces//configmaps', 'deletecollection', undefined],
      ['GET', '/api/v1/watch/namespaces//configmaps', 'watch', undefined],
      ['GET', '/api/v1/watch/namespaces//configmaps/x', 'watch', 'x'],
    ] as const) {
      const res = await raw(method, path);
      expect([method, path, res.status, res.body]).toEqual([
        method,
        path,
        403,
        { ...forbidden(verb, name), details: name ? { name, kind: 'configmaps' } : { kind: 'configmaps' } },
      ]);
    }
    const url = new URL(kapi.process.secureUrl);
    const created = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          method: 'POST',
          path: '/api/v1/namespaces//configmaps',
          ca: kapi.ca,
          agent: false,
          headers: { Authorization: `Bearer ${ALICE}`, 'Content-Type': 'application/json' },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ metadata: { name: 'y', namespace: 'team-b' } }));
    });
    expect(created).toBe(403);
    // namespaces//team-a is a list of the resource "team-a" at the cluster scope, not the Namespace team-a
    // alice may get (kapi once dropped the empty segment and served that).
    expect((await raw('GET', '/api/v1/namespaces//team-a')).status).toBe(403);
    expect((await kapi.asAdmin('GET', '/api/v1/namespaces/team-b/configmaps/x')).body.data).toEqual({ secret: 'of team-b' });
    expect((await kapi.asAdmin('GET', '/api/v1/namespaces/team-b/configmaps/y')).status).toBe(404);
  });

  test('an empty resource or name segment is no route: 404, or the named route\'s 400 "name must be provided"', async () => {
    // Allowed in team-a (resources: ['*'] covers the resource ""), then no route.
    expect((await raw('GET', '/api/v1/namespaces/team-a//configmaps')).body).toEqual(NOT_FOUND);
    expect((await raw('GET', '/apis/apps/v1/namespaces/team-a//deployments')).body).toEqual(NOT_FOUND);
    expect((await raw('GET', '/api/v1/namespaces/team-a/pods//status')).body).toEqual(status(400, 'BadRequest', 'name must be provided'));
    // kube's director hands go-restful only paths beginning with /api/v1: an extra leading slash reaches no route.
    expect((await raw('GET', '//api/v1/namespaces/team-a/configmaps')).body).toEqual(NOT_FOUND);
    expect((await raw('GET', '//api/v1/namespaces/team-b/configmaps')).status).toBe(403);
    // Trailing slashes are trimmed by both.
    const list = await raw('GET', '/api/v1/namespaces/team-a/configmaps/');
    expect([list.status, list.body.kind]).toEqual([200, 'ConfigMapList']);
  });
});
