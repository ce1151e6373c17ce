import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eventually } from '../harness/etcd-keys';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

/**
 * admissionregistration.k8s.io/v1 ValidatingAdmissionPolicies and their bindings: the API
 * (defaults, validation, status.typeChecking, tables) and the ValidatingAdmissionPolicy admission
 * plugin, on a server that writes an audit log so that audit annotations can be read.
 */

const GROUP = '/apis/admissionregistration.k8s.io/v1';
const POLICIES = `${GROUP}/validatingadmissionpolicies`;
const BINDINGS = `${GROUP}/validatingadmissionpolicybindings`;
const CMS = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

const dir = mkdtempSync(path.join(tmpdir(), 'kapi-vap-'));
const auditLog = path.join(dir, 'audit.log');
const auditPolicy = path.join(dir, 'policy.yaml');
let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;

beforeAll(async () => {
  writeFileSync(
    auditPolicy,
    ['apiVersion: audit.k8s.io/v1', 'kind: Policy', 'rules:', '- level: Metadata', '  resources: [{group: "", resources: ["configmaps"]}]'].join('\n'),
  );
  server = await startTestServer({ auditLogPath: auditLog, auditPolicyFile: auditPolicy });
  api = new Api(server.url);
  for (const ns of ['vap-plain', 'vap-labelled']) {
    const res = await api.post('/api/v1/namespaces', { metadata: { name: ns, labels: ns === 'vap-labelled' ? { tier: 'gold' } : {} } });
    expect(res.status).toBe(201);
  }
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Config maps of one test are labelled `test=<name>`, and each policy matches only its own. */
function policy(name: string, spec: Record<string, unknown>) {
  return {
    metadata: { name },
    spec: {
      matchConstraints: {
        resourceRules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        objectSelector: { matchLabels: { test: name } },
      },
      ...spec,
    },
  };
}

/** A policy and its binding, both in the watch cache the plugin reads before the test goes on. */
async function install(p: ReturnType<typeof policy>, binding: Record<string, unknown> = {}): Promise<void> {
  const created = await api.post(POLICIES, p);
  expect(created.status).toBe(201);
  const b = await api.post(BINDINGS, {
    metadata: { name: `${p.metadata.name}-binding` },
    spec: { policyName: p.metadata.name, validationActions: ['Deny'], ...binding },
  });
  expect(b.status).toBe(201);
  await eventually('the policy and binding in the cache', async () =>
    (await api.get(`${POLICIES}/${p.metadata.name}?resourceVersion=0`)).status === 200 &&
    (await api.get(`${BINDINGS}/${p.metadata.name}-binding?resourceVersion=0`)).status === 200
      ? true
      : undefined,
  );
}

const configMap = (name: string, test: string, data: Record<string, string> = {}) => ({ metadata: { name, labels: { test } }, data });

describe('the API', () => {
  test('a policy is defaulted as kube defaults it, and served with its status subresource', async () => {
    const res = await api.post(POLICIES, policy('defaults', { validations: [{ expression: 'true' }] }));
    expect(res.status).toBe(201);
    expect(res.body.spec.failurePolicy).toBe('Fail');
    expect(res.body.spec.matchConstraints).toMatchObject({ matchPolicy: 'Equivalent', namespaceSelector: {} });
    expect(res.body.spec.matchConstraints.resourceRules[0].scope).toBe('*');
    expect(res.body.metadata.generation).toBe(1);
    const status = await api.get(`${POLICIES}/defaults/status`);
    expect(status.status).toBe(200);
    const discovery = await api.get(GROUP);
    const names = discovery.body.resources.map((r: { name: string }) => r.name);
    expect(names).toEqual(expect.arrayContaining(['validatingadmissionpolicies', 'validatingadmissionpolicies/status', 'validatingadmissionpolicybindings']));
  });

  test.each([
    ['no matchConstraints', { matchConstraints: undefined, validations: [{ expression: 'true' }] }, 'spec.matchConstraints: Required value'],
    ['neither validations nor auditAnnotations', {}, 'spec.validations: Required value: validations or auditAnnotations must contain at least one item'],
    [
      'an expression that does not compile',
      { validations: [{ expression: 'object.data ==' }] },
      'spec.validations[0].expression: Invalid value: "object.data ==": compilation failed: ERROR: <input>:1:',
    ],
    [
      'an undeclared variable',
      { validations: [{ expression: 'nothing.x' }] },
      "spec.validations[0].expression: Invalid value: \"nothing.x\": compilation failed: ERROR: <input>:1:1: undeclared reference to 'nothing' (in container '')",
    ],
    ['params without a paramKind', { validations: [{ expression: 'params.max > 1' }] }, "undeclared reference to 'params'"],
    [
      'an unknown reason',
      { validations: [{ expression: 'true', reason: 'Teapot' }] },
      'spec.validations[0].reason: Unsupported value: "Teapot": supported values: "Unauthorized", "Forbidden", "Invalid", "RequestEntityTooLarge"',
    ],
    [
      'a failurePolicy of Maybe',
      { failurePolicy: 'Maybe', validations: [{ expression: 'true' }] },
      'spec.failurePolicy: Unsupported value: "Maybe": supported values: "Fail", "Ignore"',
    ],
    [
      'a matchCondition without a name',
      { validations: [{ expression: 'true' }], matchConditions: [{ expression: 'true' }] },
      'spec.matchConditions[0].name: Required value',
    ],
  ])('%s is refused with 422', async (_what, spec, cause) => {
    const res = await api.post(POLICIES, policy('bad', spec as Record<string, unknown>));
    expect(res.status).toBe(422);
    expect(res.body.reason).toBe('Invalid');
    expect(res.body.message).toContain('ValidatingAdmissionPolicy.admissionregistration.k8s.io "bad" is invalid: ');
    expect(res.body.message).toContain(cause);
  });

  test.each([
    ['no policyName', { validationActions: ['Deny'] }, 'spec.policyName: Required value'],
    ['no validationActions', { policyName: 'p' }, 'spec.validationActions: Required value: at least one validation action is required'],
    ['Deny with Warn', { policyName: 'p', validationActions: ['Deny', 'Warn'] }, 'must not contain both Deny and Warn'],
    [
      'an unknown action',
      { policyName: 'p', validationActions: ['Shout'] },
      'spec.validationActions[0]: Unsupported value: "Shout": supported values: "Audit", "Deny", "Warn"',
    ],
    [
      'a paramRef without parameterNotFoundAction',
      { policyName: 'p', validationActions: ['Deny'], paramRef: { name: 'x' } },
      'spec.paramRef.parameterNotFoundAction: Required value',
    ],
    [
      'a paramRef with name and selector',
      { policyName: 'p', validationActions: ['Deny'], paramRef: { name: 'x', selector: {}, parameterNotFoundAction: 'Deny' } },
      'spec.paramRef.name: Forbidden: name and selector are mutually exclusive',
    ],
  ])('a binding with %s is refused with 422', async (_what, spec, cause) => {
    const res = await api.post(BINDINGS, { metadata: { name: 'bad' }, spec });
    expect(res.status).toBe(422);
    expect(res.body.message).toContain(cause);
  });

  test('tables show validations and paramKind, policyName and paramRef', async () => {
    await api.post(
      POLICIES,
      policy('table', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations: [{ expression: 'true' }, { expression: 'true' }] }),
    );
    await api.post(BINDINGS, {
      metadata: { name: 'table-binding' },
      spec: { policyName: 'table', validationActions: ['Audit'], paramRef: { name: 'limits', parameterNotFoundAction: 'Allow' } },
    });
    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io';
    const p = await api.get(`${POLICIES}/table`, { accept });
    expect(p.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Validations', 'ParamKind', 'Age']);
    expect(p.body.rows[0].cells.slice(0, 3)).toEqual(['table', 2, 'v1/ConfigMap']);
    const b = await api.get(`${BINDINGS}/table-binding`, { accept });
    expect(b.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'PolicyName', 'ParamRef', 'Age']);
    expect(b.body.rows[0].cells.slice(0, 3)).toEqual(['table-binding', 'table', '*/limits']);
  });

  test('served as protobuf', async () => {
    const res = await api.get(`${POLICIES}/defaults`, { accept: 'application/vnd.kubernetes.protobuf' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/vnd.kubernetes.protobuf');
  });

  test('status.typeChecking warns of fields the matched kind does not have', async () => {
    const res = await api.post(POLICIES, {
      metadata: { name: 'typed' },
      spec: {
        matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] }] },
        validations: [{ expression: 'object.spec.replicas < 10' }, { expression: 'object.spec.replica < 10' }],
      },
    });
    expect(res.status).toBe(201);
    const status = await eventually('typeChecking', async () => {
      const got = await api.get(`${POLICIES}/typed`);
      return got.body.status?.typeChecking ? got.body.status : undefined;
    });
    expect(status.observedGeneration).toBe(1);
    expect(status.typeChecking.expressionWarnings).toEqual([
      {
        fieldRef: 'spec.validations[1].expression',
        warning: "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replica'\n | object.spec.replica < 10\n | ...........^",
      },
    ]);
  });
});

describe('admission', () => {
  test('a policy that denies: 422 Invalid with the policy and binding named, the message as the one cause', async () => {
    await install(policy('deny-big', { validations: [{ expression: "!has(object.data) || !('big' in object.data)", message: 'big is not allowed' }] }));
    const res = await api.post(CMS('default'), configMap('big', 'deny-big', { big: 'yes' }));
    expect(res.status).toBe(422);
    const cause = "ValidatingAdmissionPolicy 'deny-big' with binding 'deny-big-binding' denied request: big is not allowed";
    expect(res.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `configmaps "big" is forbidden: ${cause}`,
      reason: 'Invalid',
      details: { name: 'big', kind: 'configmaps', causes: [{ message: cause }] },
      code: 422,
    });
    expect((await api.post(CMS('default'), configMap('small', 'deny-big', { small: 'yes' }))).status).toBe(201);
  });

  test("a validation's reason and messageExpression: 403 Forbidden with the computed message", async () => {
    await install(policy('deny-forbidden', { validations: [{ expression: 'false', reason: 'Forbidden', messageExpression: "'no ' + object.metadata.name" }] }));
    const res = await api.post(CMS('default'), configMap('refused', 'deny-forbidden'));
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe('Forbidden');
    expect(res.body.message).toBe(
      "configmaps \"refused\" is forbidden: ValidatingAdmissionPolicy 'deny-forbidden' with binding 'deny-forbidden-binding' denied request: no refused",
    );
  });

  test('a binding that warns lets the request through with a Warning header', async () => {
    await install(policy('warn-only', { validations: [{ expression: 'false', message: 'just saying' }] }), { validationActions: ['Warn'] });
    const res = await api.post(CMS('default'), configMap('warned', 'warn-only'));
    expect(res.status).toBe(201);
    expect(res.headers.get('warning')).toBe(
      `299 - "Validation failed for ValidatingAdmissionPolicy 'warn-only' with binding 'warn-only-binding': just saying"`,
    );
  });

  test("params: the binding names a ConfigMap whose data the expression reads; a missing param follows parameterNotFoundAction; an unknown paramKind is the policy's error", async () => {
    await api.post(CMS('default'), { metadata: { name: 'limits' }, data: { max: '2' } });
    const spec = {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [{ expression: 'size(object.data) <= int(params.data.max)', messageExpression: "'at most ' + params.data.max + ' keys'" }],
    };
    await install(policy('with-params', spec), { paramRef: { name: 'limits', namespace: 'default', parameterNotFoundAction: 'Deny' } });
    expect((await api.post(CMS('default'), configMap('two', 'with-params', { a: '1', b: '2' }))).status).toBe(201);
    const three = await api.post(CMS('default'), configMap('three', 'with-params', { a: '1', b: '2', c: '3' }));
    expect(three.status).toBe(422);
    expect(three.body.message).toContain("with binding 'with-params-binding' denied request: at most 2 keys");
    await install(policy('missing-param', spec), { paramRef: { name: 'absent', namespace: 'default', parameterNotFoundAction: 'Deny' } });
    const missing = await api.post(CMS('default'), configMap('any', 'missing-param'));
    expect(missing.status).toBe(422);
    expect(missing.body.message).toContain(
      "ValidatingAdmissionPolicy 'missing-param' with binding 'missing-param-binding' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
    );
    await install(policy('unknown-kind', { ...spec, paramKind: { apiVersion: 'example.com/v1', kind: 'Nothing' } }), {
      paramRef: { name: 'x', parameterNotFoundAction: 'Allow' },
    });
    const unknown = await api.post(CMS('default'), configMap('any', 'unknown-kind'));
    expect(unknown.status).toBe(422);
    expect(unknown.body.details.causes).toEqual([
      {
        message:
          "ValidatingAdmissionPolicy 'unknown-kind' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Nothing'",
      },
    ]);
  });

  test('Audit: the validation_failure annotation and the policy audit annotations reach the audit event', async () => {
    await install(
      policy('audited', {
        validations: [{ expression: 'false', message: 'noted' }],
        auditAnnotations: [{ key: 'seen', valueExpression: "'saw ' + object.metadata.name" }],
      }),
      {
        validationActions: ['Audit'],
      },
    );
    const res = await api.post(CMS('default'), configMap('audited-cm', 'audited'));
    expect(res.status).toBe(201);
    const id = res.headers.get('audit-id')!;
    const event = await eventually('the audit event', async () =>
      readFileSync(auditLog, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .find((e) => e.auditID === id && e.stage === 'ResponseComplete'),
    );
    expect(JSON.parse(event.annotations['validation.policy.admission.k8s.io/validation_failure'])).toEqual([
      { message: 'noted', policy: 'audited', binding: 'audited-binding', expressionIndex: 0, validationActions: ['Audit'] },
    ]);
    expect(event.annotations['audited/seen']).toBe('saw audited-cm');
  });

  test('matchConditions: a false condition skips the policy; variables feed the validations', async () => {
    await install(
      policy('conditional', {
        matchConditions: [{ name: 'only-strict', expression: "has(object.metadata.annotations) && object.metadata.annotations['mode'] == 'strict'" }],
        variables: [{ name: 'keys', expression: 'size(object.data)' }],
        validations: [{ expression: 'variables.keys == 0', message: 'strict config maps are empty' }],
      }),
    );
    const relaxed = await api.post(CMS('default'), {
      ...configMap('relaxed', 'conditional', { a: '1' }),
      metadata: { name: 'relaxed', labels: { test: 'conditional' } },
    });
    expect(relaxed.status).toBe(201);
    const strict = await api.post(CMS('default'), {
      metadata: { name: 'strict', labels: { test: 'conditional' }, annotations: { mode: 'strict' } },
      data: { a: '1' },
    });
    expect(strict.status).toBe(422);
    expect(strict.body.message).toContain('denied request: strict config maps are empty');
  });

  test('failurePolicy: a runtime error refuses under Fail and is ignored under Ignore', async () => {
    const failing = { validations: [{ expression: "object.data['missing'] == 'x'" }] };
    await install(policy('fails-closed', failing));
    const closed = await api.post(CMS('default'), configMap('closed', 'fails-closed', { a: '1' }));
    expect(closed.status).toBe(422);
    expect(closed.body.message).toContain(
      "ValidatingAdmissionPolicy 'fails-closed' with binding 'fails-closed-binding' denied request: expression 'object.data['missing'] == 'x'' resulted in error: ",
    );
    await install(policy('fails-open', { ...failing, failurePolicy: 'Ignore' }));
    expect((await api.post(CMS('default'), configMap('open', 'fails-open', { a: '1' }))).status).toBe(201);
  });

  test("namespaceObject: the request's namespace and its labels", async () => {
    await install(
      policy('gold-only', {
        validations: [
          { expression: "'tier' in namespaceObject.metadata.labels && namespaceObject.metadata.labels['tier'] == 'gold'", message: 'only in gold namespaces' },
        ],
      }),
    );
    expect((await api.post(CMS('vap-labelled'), configMap('ok', 'gold-only'))).status).toBe(201);
    const plain = await api.post(CMS('vap-plain'), configMap('not-ok', 'gold-only'));
    expect(plain.status).toBe(422);
    expect(plain.body.message).toContain('only in gold namespaces');
  });

  test("a binding's matchResources narrows where the policy applies", async () => {
    await install(policy('narrowed', { validations: [{ expression: 'false', message: 'not here' }] }), {
      matchResources: { namespaceSelector: { matchLabels: { tier: 'gold' } } },
    });
    expect((await api.post(CMS('vap-plain'), configMap('elsewhere', 'narrowed'))).status).toBe(201);
    expect((await api.post(CMS('vap-labelled'), configMap('here', 'narrowed'))).status).toBe(422);
  });

  test('authorizer: a check of what the requesting user may do', async () => {
    await install(
      policy('authz', {
        validations: [
          {
            expression: "authorizer.group('').resource('secrets').namespace('default').check('list').allowed()",
            message: 'only for those who may list secrets',
          },
        ],
      }),
    );
    // The insecure port's user is in system:masters: allowed everything.
    expect((await api.post(CMS('default'), configMap('admin', 'authz'))).status).toBe(201);
    await api.post('/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      metadata: { name: 'vap-cm-writer' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create'] }],
    });
    await api.post('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
      metadata: { name: 'vap-cm-writer' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'vap-cm-writer' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
    });
    const asAlice = () => api.post(CMS('default'), configMap(`alice-${Date.now()}`, 'authz'), { headers: { 'Impersonate-User': 'alice' } });
    const refused = await eventually('alice may create config maps', async () => {
      const res = await asAlice();
      return res.status === 403 && res.body.reason === 'Forbidden' && !String(res.body.message).includes('ValidatingAdmissionPolicy') ? undefined : res;
    });
    expect(refused.status).toBe(422);
    expect(refused.body.message).toContain('only for those who may list secrets');
  });

  test('policies and bindings themselves are never subject to policies', async () => {
    await install({
      metadata: { name: 'no-policies' },
      spec: {
        matchConstraints: {
          resourceRules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }],
          objectSelector: { matchLabels: { test: 'no-policies' } },
        },
        validations: [{ expression: 'false' }],
      },
    } as ReturnType<typeof policy>);
    const res = await api.post(POLICIES, {
      ...policy('still-possible', { validations: [{ expression: 'true' }] }),
      metadata: { name: 'still-possible', labels: { test: 'no-policies' } },
    });
    expect(res.status).toBe(201);
  });
});
