import { createEstablished } from '../harness/crds';
import { Api } from '../harness/http';
import { startServerProcess, type ServerProcess } from '../harness/process';

/**
 * Issue 25, items 3, 4 and 5: user patterns run on Go's regexp semantics (RE2, linear time), so
 * a pattern that backtracks exponentially in ECMAScript (`^(a+)+$`) answers at once and leaves the
 * server free; a CRD rule whose estimated cost is over kube's static limit refuses the CRD, and CEL's
 * runtime cost limit stops an expensive rule with kube's message; a CRD schema
 * of the wrong JSON types or with nulls is a 4xx as kube answers it.
 */

let server: ServerProcess & { port: number };
let api: Api;

beforeAll(async () => {
  server = await startServerProcess();
  api = new Api(server.url);
}, 60_000);

afterAll(async () => {
  await server.stop();
});

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
// 28 a's and a '!': seconds of backtracking in ECMAScript, per pattern (issue 25), instant in RE2
const EVIL = `${'a'.repeat(28)}!`;

function crd(plural: string, kind: string, spec: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.regex.example.com` },
    spec: {
      group: 'regex.example.com',
      scope: 'Namespaced',
      names: { plural, kind },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec } } } }],
    },
  };
}

/** Sends `write` while /readyz is probed; resolves with the write's answer, how long it took and the slowest probe. */
async function timed<T>(write: () => Promise<T>): Promise<{ reply: T; ms: number; slowestReadyzMs: number }> {
  let running = true;
  let slowestReadyzMs = 0;
  const probe = (async () => {
    while (running) {
      const started = Date.now();
      const res = await fetch(`${server.url}/readyz`);
      await res.text();
      slowestReadyzMs = Math.max(slowestReadyzMs, Date.now() - started);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const started = Date.now();
  const reply = await write();
  const ms = Date.now() - started;
  running = false;
  await probe;
  return { reply, ms, slowestReadyzMs };
}

describe('ReDoS', () => {
  beforeAll(async () => {
    await createEstablished(
      api,
      crd('matchers', 'Matcher', {
        type: 'object',
        properties: { name: { type: 'string', 'x-kubernetes-validations': [{ rule: "self.matches('^(a+)+$')", message: 'only as' }] } },
      }),
    );
    await createEstablished(api, crd('patterns', 'Pattern', { type: 'object', properties: { name: { type: 'string', pattern: '^(a+)+$' } } }));
  }, 60_000);

  test("a rule calling matches('^(a+)+$') on 28 a's and a '!' answers at once with the rule's failure, /readyz stays fast", async () => {
    const { reply, ms, slowestReadyzMs } = await timed(() =>
      api.post('/apis/regex.example.com/v1/namespaces/default/matchers', {
        apiVersion: 'regex.example.com/v1',
        kind: 'Matcher',
        metadata: { name: 'evil' },
        spec: { name: EVIL },
      }),
    );
    expect(reply.status).toBe(422);
    expect(reply.body.details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(EVIL)}: only as`, field: 'spec.name' },
    ]);
    expect(ms).toBeLessThan(1000);
    expect(slowestReadyzMs).toBeLessThan(1000);

    const good = await api.post('/apis/regex.example.com/v1/namespaces/default/matchers', {
      apiVersion: 'regex.example.com/v1',
      kind: 'Matcher',
      metadata: { name: 'good' },
      spec: { name: 'a'.repeat(40) },
    });
    expect(good.status).toBe(201);
  });

  test("a schema pattern '^(a+)+$' against 28 a's and a '!' answers at once with kube-openapi's message", async () => {
    const { reply, ms, slowestReadyzMs } = await timed(() =>
      api.post('/apis/regex.example.com/v1/namespaces/default/patterns', {
        apiVersion: 'regex.example.com/v1',
        kind: 'Pattern',
        metadata: { name: 'evil' },
        spec: { name: EVIL },
      }),
    );
    expect(reply.status).toBe(422);
    expect(reply.body.details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: `Invalid value: "${EVIL}": spec.name in body should match '^(a+)+$'`, field: 'spec.name' },
    ]);
    expect(ms).toBeLessThan(1000);
    expect(slowestReadyzMs).toBeLessThan(1000);
  });

  test('a ValidatingAdmissionPolicy matching names with an exponential ECMAScript pattern answers at once', async () => {
    const policy = await api.post('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', {
      metadata: { name: 'no-evil-names' },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
        validations: [{ expression: "!object.metadata.name.matches('^(a+)+b$') && object.metadata.name.findAll('(a|aa)+c').size() == 0" }],
      },
    });
    expect(policy.status).toBe(201);
    const binding = await api.post('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', {
      metadata: { name: 'no-evil-names' },
      spec: { policyName: 'no-evil-names', validationActions: ['Deny'] },
    });
    expect(binding.status).toBe(201);
    // the policy takes effect once the plugin's informer has it
    for (let i = 0; i < 100; i++) {
      const denied = await api.post('/api/v1/namespaces/default/configmaps?dryRun=All', { metadata: { name: 'aaab' } });
      if (denied.status === 422) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    // 28 a's then neither b nor c: ECMAScript backtracks through 2^28 ways to split the a's
    const evil = await timed(() => api.post('/api/v1/namespaces/default/configmaps?dryRun=All', { metadata: { name: `${'a'.repeat(28)}-x` } }));
    expect(evil.reply.status).toBe(201);
    expect(evil.ms).toBeLessThan(1000);
    expect(evil.slowestReadyzMs).toBeLessThan(1000);
    const denied = await api.post('/api/v1/namespaces/default/configmaps?dryRun=All', { metadata: { name: 'aaab' } });
    expect(denied.status).toBe(422);
  });

  test("a pattern RE2 does not have is refused as kube's compiler refuses it", async () => {
    const rule = "self.matches('^(?!admin).*$')";
    const res = await api.post(
      CRDS,
      crd('lookaheads', 'Lookahead', { type: 'object', properties: { name: { type: 'string', 'x-kubernetes-validations': [{ rule }] } } }),
    );
    expect(res.status).toBe(422);
    expect(res.body.details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[name].x-kubernetes-validations[0].rule',
        message: `Invalid value: {"Rule":${JSON.stringify(rule)},"Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:14: invalid matches argument\n | ${rule}\n | .............^`,
      },
    ]);
  });
});

describe('CEL cost limits', () => {
  const keys = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, 'v']));

  test("a CRD rule estimated past kube's static limit refuses the CRD; bounded, past the per-call limit it is refused with kube-apiserver's error, and stops early", async () => {
    const rule = 'self.all(x, self.all(y, self.all(z, x + y + z != "")))';
    // 100 keys: the rule's static estimate, 100 * (6 * 100^2 + 5 * 100 + 5) + 2, is within kube's limit of 10,000,000 (unbounded, the CRD is refused)
    const entries = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, 'v']));
    const m = { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-validations': [{ rule }, { rule: 'false' }] };
    const unbounded = await api.post(CRDS, crd('costlies', 'Costly', { type: 'object', properties: { m } }));
    expect(unbounded.status).toBe(422);
    expect(unbounded.body.details.causes).toContainEqual({
      reason: 'FieldValueForbidden',
      field: 'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[m].x-kubernetes-validations[0].rule',
      message:
        'Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
    });
    await createEstablished(
      api,
      crd('costlies', 'Costly', {
        type: 'object',
        properties: { m: { ...m, maxProperties: 100 } },
      }),
    );
    const { reply, ms, slowestReadyzMs } = await timed(() =>
      api.post('/apis/regex.example.com/v1/namespaces/default/costlies', {
        apiVersion: 'regex.example.com/v1',
        kind: 'Costly',
        metadata: { name: 'c' },
        spec: { m: entries },
      }),
    );
    expect(reply.status).toBe(422);
    expect(reply.body.details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec.m',
        message: `Invalid value: "object": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${rule}`,
      },
    ]);
    // 100^3 iterations run to the end take seconds
    expect(ms).toBeLessThan(5000);
    expect(slowestReadyzMs).toBeLessThan(5000);
  });

  test("a ValidatingAdmissionPolicy expression past kube's per-call limit is an evaluation error under failurePolicy Fail", async () => {
    const expression = "object.data.all(x, object.data.all(y, object.data.all(z, x + y + z != '')))";
    await api.post('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', {
      metadata: { name: 'costly' },
      spec: {
        failurePolicy: 'Fail',
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
        matchConditions: [{ name: 'costly-only', expression: "object.metadata.name.startsWith('costly')" }],
        validations: [{ expression }],
      },
    });
    await api.post('/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings', {
      metadata: { name: 'costly' },
      spec: { policyName: 'costly', validationActions: ['Deny'] },
    });
    let last: Awaited<ReturnType<typeof timed<{ status: number; body: any }>>> | undefined;
    for (let i = 0; i < 100; i++) {
      last = await timed(() => api.post('/api/v1/namespaces/default/configmaps?dryRun=All', { metadata: { name: 'costly' }, data: keys }));
      if (last.reply.status !== 201) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(last!.reply.status).toBe(422);
    expect(last!.reply.body.message).toBe(
      `configmaps "costly" is forbidden: ValidatingAdmissionPolicy 'costly' with binding 'costly' denied request: expression '${expression}' resulted in error: operation cancelled: actual cost limit exceeded`,
    );
    expect(last!.ms).toBeLessThan(5000);
  });
});

describe('CRD schemas with nulls or values of the wrong JSON type', () => {
  const decodeError = (detail: string) =>
    `CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: json: cannot unmarshal ${detail}`;
  const at = (path: string) => `spec.versions[0].schema.openAPIV3Schema.properties[spec]${path}`;
  const props = 'JSONSchemaProps.spec.versions.schema.openAPIV3Schema.properties';

  const cases: [string, Record<string, unknown>, number, string][] = [
    [
      'x-kubernetes-validations a string',
      { type: 'object', 'x-kubernetes-validations': 'self.a' },
      400,
      decodeError(`string into Go struct field ${props}.x-kubernetes-validations of type v1.ValidationRules`),
    ],
    [
      'x-kubernetes-validations a number',
      { type: 'object', 'x-kubernetes-validations': 1 },
      400,
      decodeError(`number into Go struct field ${props}.x-kubernetes-validations of type v1.ValidationRules`),
    ],
    [
      'x-kubernetes-validations an object',
      { type: 'object', 'x-kubernetes-validations': { rule: 'true' } },
      400,
      decodeError(`object into Go struct field ${props}.x-kubernetes-validations of type v1.ValidationRules`),
    ],
    [
      'x-kubernetes-validations [1]',
      { type: 'object', 'x-kubernetes-validations': [1] },
      400,
      decodeError(`number into Go struct field ${props}.x-kubernetes-validations of type v1.ValidationRule`),
    ],
    [
      'a rule that is a number',
      { type: 'object', 'x-kubernetes-validations': [{ rule: 5 }] },
      400,
      decodeError(`number into Go struct field ValidationRule.spec.versions.schema.openAPIV3Schema.properties.x-kubernetes-validations.rule of type string`),
    ],
    [
      'x-kubernetes-validations a string under items',
      { type: 'array', items: { type: 'string', 'x-kubernetes-validations': 'x' } },
      400,
      decodeError(`string into Go struct field ${props}.items of type v1.ValidationRules`),
    ],
    [
      'properties a string',
      { type: 'object', properties: 'x' },
      400,
      decodeError(`string into Go struct field ${props}.properties of type map[string]v1.JSONSchemaProps`),
    ],
    [
      'additionalProperties a string',
      { type: 'object', additionalProperties: 'x' },
      400,
      'CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: boolean or JSON schema expected',
    ],
    ['maxLength 1.5', { type: 'string', maxLength: 1.5 }, 400, decodeError(`number 1.5 into Go struct field ${props}.maxLength of type int64`)],
    [
      'x-kubernetes-validations [null]',
      { type: 'object', 'x-kubernetes-validations': [null] },
      422,
      `${at('.x-kubernetes-validations[0].rule')}: Required value: rule is not specified`,
    ],
    [
      'x-kubernetes-validations [{}]',
      { type: 'object', 'x-kubernetes-validations': [{}] },
      422,
      `${at('.x-kubernetes-validations[0].rule')}: Required value: rule is not specified`,
    ],
    [
      'a null property',
      { type: 'object', properties: { a: null } },
      422,
      `${at('.properties[a].type')}: Required value: must not be empty for specified object fields`,
    ],
    ['null items of an array', { type: 'array', items: null }, 422, `${at('.items')}: Required value: must be specified`],
    [
      'a null property under items',
      { type: 'object', properties: { a: { type: 'array', items: { type: 'object', properties: { b: null } } } } },
      422,
      `${at('.properties[a].items.properties[b].type')}: Required value: must not be empty for specified object fields`,
    ],
  ];

  test.each(cases)('%s', async (_name, spec, code, message) => {
    const res = await api.post(CRDS, crd('nulls', 'Null', spec));
    expect(res.status).toBe(code);
    expect(res.body.kind).toBe('Status');
    if (code === 400) expect(res.body.message).toBe(message);
    else expect(res.body.message).toBe(`CustomResourceDefinition.apiextensions.k8s.io "nulls.regex.example.com" is invalid: ${message}`);
  });

  test('nulls where Go reads nothing are dropped, and the CRD is created', async () => {
    const res = await api.post(
      CRDS,
      crd('dropped', 'Dropped', {
        type: 'object',
        'x-kubernetes-validations': null,
        additionalProperties: null,
        description: null,
        properties: { a: { type: 'string', pattern: null } },
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body.spec.versions[0].schema.openAPIV3Schema.properties.spec).toEqual({ type: 'object', properties: { a: { type: 'string' } } });
  });
});
