import { eventually } from '../harness/etcd-keys';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';
import { parseFeatureGates } from '../../src/server/feature-gates';

/**
 * admissionregistration.k8s.io/v1 MutatingAdmissionPolicies and their bindings, GA in 1.36: served
 * by default (the MutatingAdmissionPolicy gate is on), v1beta1 only when --runtime-config enables it,
 * both versions the same objects; and the MutatingAdmissionPolicy admission plugin (JSONPatch and
 * ApplyConfiguration mutations, params, matchConditions, failurePolicy, reinvocation).
 */

const GROUP = '/apis/admissionregistration.k8s.io/v1';
const BETA = '/apis/admissionregistration.k8s.io/v1beta1';
const POLICIES = `${GROUP}/mutatingadmissionpolicies`;
const BINDINGS = `${GROUP}/mutatingadmissionpolicybindings`;
const NS = 'map-test';
const CMS = `/api/v1/namespaces/${NS}/configmaps`;
const ENABLED = { runtimeConfig: { 'admissionregistration.k8s.io/v1beta1': 'true' } };

describe('not served where kube 1.36 does not serve them', () => {
  test.each([
    ['v1beta1 by default', {}, 200],
    [
      'with the MutatingAdmissionPolicy gate off',
      { featureGates: parseFeatureGates('MutatingAdmissionPolicy=false'), runtimeConfig: ENABLED.runtimeConfig },
      404,
    ],
  ])('%s: 404, and not in discovery', async (_what, overrides, v1Status) => {
    const server = await startTestServer(overrides);
    try {
      const api = new Api(server.url);
      expect((await api.get(`${BETA}/mutatingadmissionpolicies`)).status).toBe(404);
      expect((await api.get(`${BETA}/mutatingadmissionpolicybindings`)).status).toBe(404);
      expect((await api.get(POLICIES)).status).toBe(v1Status);
      expect((await api.get(BINDINGS)).status).toBe(v1Status);
      const groups = await api.get('/apis');
      const admission = groups.body.groups.find((g: { name: string }) => g.name === 'admissionregistration.k8s.io');
      expect(admission.versions.map((v: { version: string }) => v.version)).toEqual(['v1']);
    } finally {
      await server.close();
    }
  });
});

describe('served in v1, and in v1beta1 with admissionregistration.k8s.io/v1beta1=true', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let api: Api;

  beforeAll(async () => {
    server = await startTestServer(ENABLED);
    api = new Api(server.url);
    expect((await api.post('/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
  });

  afterAll(async () => {
    await server.close();
  });

  /** Config maps of one test are labelled `test=<name>`, and each policy matches only its own. */
  function policy(name: string, spec: Record<string, unknown>) {
    return {
      metadata: { name },
      spec: {
        matchConstraints: {
          resourceRules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
          objectSelector: { matchLabels: { test: name.replace(/^[a-z]-/, '') } },
        },
        reinvocationPolicy: 'Never',
        ...spec,
      },
    };
  }

  /** A policy and its binding, both in the watch cache the plugin reads before the test goes on. */
  async function install(p: ReturnType<typeof policy>, binding: Record<string, unknown> = {}): Promise<void> {
    const created = await api.post(POLICIES, p);
    expect(created.status).toBe(201);
    const b = await api.post(BINDINGS, { metadata: { name: `${p.metadata.name}-binding` }, spec: { policyName: p.metadata.name, ...binding } });
    expect(b.status).toBe(201);
    await eventually('the policy and binding in the cache', async () =>
      (await api.get(`${POLICIES}/${p.metadata.name}?resourceVersion=0`)).status === 200 &&
      (await api.get(`${BINDINGS}/${p.metadata.name}-binding?resourceVersion=0`)).status === 200
        ? true
        : undefined,
    );
  }

  const configMap = (name: string, test: string, labels: Record<string, string> = {}) => ({
    metadata: { name, labels: { test, ...labels } },
    data: { a: '1' },
  });

  const addLabel = (key: string, value: string) => ({
    patchType: 'JSONPatch',
    jsonPatch: { expression: `[JSONPatch{op: "add", path: "/metadata/labels/" + jsonpatch.escapeKey("${key}"), value: ${value}}]` },
  });

  test('discovery lists both resources in v1 and v1beta1; v1 is the preferred version; v1beta1 serves the objects stored as v1', async () => {
    for (const gv of [GROUP, BETA]) {
      const discovery = await api.get(gv);
      expect(discovery.status).toBe(200);
      expect(
        discovery.body.resources
          .map((r: { name: string }) => r.name)
          .filter((n: string) => n.startsWith('mutatingadmission'))
          .sort(),
      ).toEqual(['mutatingadmissionpolicies', 'mutatingadmissionpolicybindings']);
    }
    const groups = await api.get('/apis');
    const admission = groups.body.groups.find((g: { name: string }) => g.name === 'admissionregistration.k8s.io');
    expect(admission.versions.map((v: { version: string }) => v.version)).toEqual(['v1', 'v1beta1']);
    expect(admission.preferredVersion.version).toBe('v1');
    for (const version of ['v1', 'v1beta1']) {
      const openapi = await api.get(`/openapi/v3/apis/admissionregistration.k8s.io/${version}`);
      expect(openapi.status).toBe(200);
      expect(Object.keys(openapi.body.components.schemas)).toContain(`io.k8s.api.admissionregistration.${version}.MutatingAdmissionPolicy`);
    }
    const created = await api.post(`${BETA}/mutatingadmissionpolicies`, policy('beta-written', { mutations: [addLabel('x', '"y"')] }));
    expect(created.status).toBe(201);
    expect(created.body.apiVersion).toBe('admissionregistration.k8s.io/v1beta1');
    const read = await api.get(`${POLICIES}/beta-written`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingAdmissionPolicy', spec: { failurePolicy: 'Fail' } });
    expect((await api.delete(`${POLICIES}/beta-written`)).status).toBe(200);
  });

  test('a policy is defaulted as kube defaults it', async () => {
    const res = await api.post(POLICIES, policy('defaults', { mutations: [addLabel('x', '"y"')] }));
    expect(res.status).toBe(201);
    expect(res.body.spec.failurePolicy).toBe('Fail');
    expect(res.body.spec.matchConstraints).toMatchObject({ matchPolicy: 'Equivalent', namespaceSelector: {} });
    expect(res.body.spec.matchConstraints.resourceRules[0].scope).toBe('*');
  });

  test.each([
    ['no mutations', { mutations: [] }, 'spec.mutations: Required value: mutations must contain at least one item'],
    ['no reinvocationPolicy', { reinvocationPolicy: undefined, mutations: [addLabel('x', '"y"')] }, 'spec.reinvocationPolicy: Required value'],
    [
      'an unknown patchType',
      { mutations: [{ patchType: 'Merge' }] },
      'spec.mutations[0].patchType: Unsupported value: "Merge": supported values: "ApplyConfiguration", "JSONPatch"',
    ],
    [
      'a JSONPatch without its expression',
      { mutations: [{ patchType: 'JSONPatch' }] },
      'spec.mutations[0].jsonPatch: Required value: must be specified when patchType is JSONPatch',
    ],
    [
      'a DELETE rule',
      {
        matchConstraints: { resourceRules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] },
        mutations: [addLabel('x', '"y"')],
      },
      'spec.matchConstraints.resourceRules.operations: Unsupported value: "DELETE"',
    ],
    [
      'an expression that does not compile',
      { mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "add", path: nope}]' } }] },
      "undeclared reference to 'nope'",
    ],
  ])('a policy with %s is refused with 422', async (_what, spec, cause) => {
    const res = await api.post(POLICIES, { metadata: { name: 'bad' }, spec: { ...policy('bad', {}).spec, ...spec } });
    expect(res.status).toBe(422);
    expect(res.body.message).toContain(cause);
  });

  test('tables show mutations and paramKind, policyName and paramRef', async () => {
    await api.post(POLICIES, policy('table', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, mutations: [addLabel('a', '"b"'), addLabel('c', '"d"')] }));
    await api.post(BINDINGS, {
      metadata: { name: 'table-binding' },
      spec: { policyName: 'table', paramRef: { name: 'limits', parameterNotFoundAction: 'Allow' } },
    });
    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io';
    const p = await api.get(`${POLICIES}/table`, { accept });
    expect(p.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Mutations', 'ParamKind', 'Age']);
    expect(p.body.rows[0].cells.slice(0, 3)).toEqual(['table', 2, 'v1/ConfigMap']);
    const b = await api.get(`${BINDINGS}/table-binding`, { accept });
    expect(b.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'PolicyName', 'ParamRef', 'Age']);
    expect(b.body.rows[0].cells.slice(0, 3)).toEqual(['table-binding', 'table', '*/limits']);
  });

  test('served as protobuf', async () => {
    const res = await api.get(`${POLICIES}/defaults`, { accept: 'application/vnd.kubernetes.protobuf' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/vnd.kubernetes.protobuf');
  });

  test('a JSONPatch mutation adds a label', async () => {
    await install(policy('jsonpatch', { mutations: [addLabel('example.com/team', '"blue"')] }));
    const res = await api.post(CMS, configMap('jp', 'jsonpatch'));
    expect(res.status).toBe(201);
    expect(res.body.metadata.labels).toEqual({ test: 'jsonpatch', 'example.com/team': 'blue' });
    const other = await api.post(CMS, configMap('jp-other', 'unrelated'));
    expect(other.body.metadata.labels).toEqual({ test: 'unrelated' });
  });

  test('an ApplyConfiguration mutation merges labels and data as server-side apply would', async () => {
    const expression = 'Object{metadata: Object.metadata{labels: {"applied": "yes"}}, data: {"b": string(object.data.size())}}';
    await install(policy('apply', { mutations: [{ patchType: 'ApplyConfiguration', applyConfiguration: { expression } }] }));
    const res = await api.post(CMS, configMap('ac', 'apply', { kept: 'too' }));
    expect(res.status).toBe(201);
    expect(res.body.metadata.labels).toEqual({ test: 'apply', kept: 'too', applied: 'yes' });
    expect(res.body.data).toEqual({ a: '1', b: '1' });
  });

  test('params: the label value comes from the binding paramRef; a missing param with Deny refuses', async () => {
    expect((await api.post(CMS, { metadata: { name: 'team-param' }, data: { team: 'red' } })).status).toBe(201);
    await install(policy('params', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, mutations: [addLabel('team', 'params.data.team')] }), {
      paramRef: { name: 'team-param', namespace: NS, parameterNotFoundAction: 'Deny' },
    });
    const res = await api.post(CMS, configMap('with-param', 'params'));
    expect(res.status).toBe(201);
    expect(res.body.metadata.labels.team).toBe('red');
    await install(policy('noparam', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, mutations: [addLabel('team', 'params.data.team')] }), {
      paramRef: { name: 'absent', namespace: NS, parameterNotFoundAction: 'Deny' },
    });
    const refused = await api.post(CMS, configMap('without-param', 'noparam'));
    expect(refused.status).toBe(403);
    expect(refused.body.reason).toBe('Forbidden');
    const message =
      "policy 'noparam' with binding 'noparam-binding' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction";
    expect(refused.body.message).toBe(message);
    expect(refused.body.details).toEqual({ name: 'without-param', kind: 'configmaps', causes: [{ message }] });
  });

  test('variables and matchConditions: a false condition skips the policy', async () => {
    await install(
      policy('conditions', {
        variables: [{ name: 'color', expression: 'has(object.data.color) ? object.data.color : "none"' }],
        matchConditions: [{ name: 'has-color', expression: 'has(object.data.color)' }],
        mutations: [addLabel('color', 'variables.color')],
      }),
    );
    const colored = await api.post(CMS, { metadata: { name: 'colored', labels: { test: 'conditions' } }, data: { color: 'green' } });
    expect(colored.body.metadata.labels.color).toBe('green');
    const plain = await api.post(CMS, configMap('plain', 'conditions'));
    expect(plain.status).toBe(201);
    expect(plain.body.metadata.labels.color).toBeUndefined();
  });

  test("failurePolicy: Fail refuses with kube's 403 when a mutation errs, Ignore admits the object unchanged", async () => {
    const failing = { patchType: 'JSONPatch', jsonPatch: { expression: '[JSONPatch{op: "add", path: "/metadata/labels/x", value: object.data.missing}]' } };
    await install(policy('fail', { mutations: [failing] }));
    await install(policy('ignore', { failurePolicy: 'Ignore', mutations: [failing] }));
    const refused = await api.post(CMS, configMap('failed', 'fail'));
    expect(refused.status).toBe(403);
    expect(refused.body.reason).toBe('Invalid');
    expect(refused.body.message).toMatch(/^policy 'fail' with binding 'fail-binding' denied request: expression '.*' resulted in error: /);
    const ignored = await api.post(CMS, configMap('ignored', 'ignore'));
    expect(ignored.status).toBe(201);
    expect(ignored.body.metadata.labels).toEqual({ test: 'ignore' });
  });

  test('reinvocationPolicy IfNeeded: a policy runs again after a later one changed the object', async () => {
    // "a-" runs before "b-" (name order); it copies a label "b-" adds, so it only sees it when reinvoked.
    const copy = {
      patchType: 'JSONPatch',
      jsonPatch: {
        expression: 'has(object.metadata.labels.stage) ? [JSONPatch{op: "add", path: "/metadata/labels/copied", value: object.metadata.labels.stage}] : []',
      },
    };
    await install(policy('a-reinvoke', { reinvocationPolicy: 'IfNeeded', mutations: [copy] }));
    await install(policy('b-reinvoke', { mutations: [addLabel('stage', '"two"')] }));
    const res = await api.post(CMS, configMap('reinvoked', 'reinvoke'));
    expect(res.status).toBe(201);
    expect(res.body.metadata.labels).toEqual({ test: 'reinvoke', stage: 'two', copied: 'two' });
  });

  test('on UPDATE too, and dry run mutates what it returns without storing', async () => {
    const created = await api.post(CMS, configMap('updated', 'unrelated'));
    const res = await api.put(`${CMS}/updated?dryRun=All`, { ...created.body, metadata: { ...created.body.metadata, labels: { test: 'jsonpatch' } } });
    expect(res.status).toBe(200);
    expect(res.body.metadata.labels['example.com/team']).toBe('blue');
    expect((await api.get(`${CMS}/updated`)).body.metadata.labels).toEqual({ test: 'unrelated' });
  });
});
