import { eventually } from '../harness/etcd-keys';
import { createEstablished, simpleCrd } from '../harness/crds';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';
import { reviewResponse, startStandInWebhook, type StandInWebhook } from '../harness/webhook-server';

/**
 * Which requests reach a webhook: matchConditions (CEL, all must hold; an error follows the
 * failurePolicy) and matchPolicy Equivalent (a rule naming another version of the resource
 * matches, and the object is sent as that version).
 */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
let webhook: StandInWebhook;
let base: string;
let caBundle: string;
/** The requests each webhook path received, by path. */
const received: Record<string, Record<string, any>[]> = {};

const VALIDATING = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const MUTATING = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';
const CMS = '/api/v1/namespaces/default/configmaps';

beforeAll(async () => {
  webhook = await startStandInWebhook((review, path) => {
    (received[path] ??= []).push(review.request);
    const allowed = !path.startsWith('/deny');
    const response: Record<string, unknown> = { allowed, ...(allowed ? {} : { status: { code: 403, message: `refused by ${path}` } }) };
    if (path.startsWith('/label')) {
      response.patchType = 'JSONPatch';
      response.patch = Buffer.from(
        JSON.stringify([{ op: 'add', path: '/metadata/labels/seen-as', value: review.request.object.apiVersion.replace('/', '-') }]),
      ).toString('base64');
    }
    return reviewResponse(review, response);
  });
  base = webhook.base;
  caBundle = webhook.caBundle;
  server = await startTestServer();
  api = new Api(server.url);
});

afterAll(async () => {
  await server.close();
  await webhook.close();
});

function hook(name: string, path: string, rules: unknown[], extra: Record<string, unknown> = {}) {
  return { name, clientConfig: { caBundle, url: `${base}${path}` }, rules, sideEffects: 'None', admissionReviewVersions: ['v1'], ...extra };
}

const configMapRule = { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] };

async function configure(path: string, name: string, webhooks: unknown[]): Promise<void> {
  const created = await api.post(path, { metadata: { name }, webhooks });
  expect(created.status).toBe(201);
  await eventually(`${name} in the cache`, async () => ((await api.get(`${path}/${name}?resourceVersion=0`)).status === 200 ? true : undefined));
}

describe('matchConditions', () => {
  test('expressions that do not compile, and more than 64 conditions, are refused with 422', async () => {
    const bad = await api.post(VALIDATING, {
      metadata: { name: 'bad' },
      webhooks: [hook('bad.kapi.test', '/x', [configMapRule], { matchConditions: [{ name: 'c', expression: 'object.metadata.name ==' }] })],
    });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toContain(
      'webhooks[0].matchConditions[0].expression: Invalid value: "object.metadata.name ==": compilation failed: ERROR: <input>:1:',
    );
    const undeclared = await api.post(VALIDATING, {
      metadata: { name: 'bad' },
      webhooks: [hook('bad.kapi.test', '/x', [configMapRule], { matchConditions: [{ name: 'c', expression: 'params.x' }] })],
    });
    expect(undeclared.body.message).toContain("undeclared reference to 'params'");
    const many = Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' }));
    const tooMany = await api.post(VALIDATING, {
      metadata: { name: 'bad' },
      webhooks: [hook('bad.kapi.test', '/x', [configMapRule], { matchConditions: many })],
    });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.message).toContain('webhooks[0].matchConditions: Too many: 65: must have at most 64 items');
  });

  test('the webhook is called only when every condition is true', async () => {
    await configure(VALIDATING, 'conditions', [
      hook('conditions.kapi.test', '/deny-conditions', [configMapRule], {
        matchConditions: [
          { name: 'labelled', expression: "has(object.metadata.labels) && 'guarded' in object.metadata.labels" },
          { name: 'not-admin', expression: "!('system:masters' in request.userInfo.groups) || object.metadata.name.startsWith('guarded-')" },
        ],
      }),
    ]);
    expect((await api.post(CMS, { metadata: { name: 'free' } })).status).toBe(201);
    expect((await api.post(CMS, { metadata: { name: 'labelled-only', labels: { guarded: 'yes' } } })).status).toBe(201);
    const refused = await api.post(CMS, { metadata: { name: 'guarded-one', labels: { guarded: 'yes' } } });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('admission webhook "conditions.kapi.test" denied the request: refused by /deny-conditions');
    expect(received['/deny-conditions'].map((r) => r.name)).toEqual(['guarded-one']);
  });

  test('a condition that errs refuses the request under failurePolicy Fail (403) and skips the webhook under Ignore', async () => {
    const erring = [{ name: 'reads-a-missing-key', expression: "object.data['absent'] == 'x'" }];
    const rule = { ...configMapRule, operations: ['UPDATE'] };
    await configure(VALIDATING, 'erring', [
      hook('fail.kapi.test', '/deny-fail', [rule], { matchConditions: erring, objectSelector: { matchLabels: { policy: 'fail' } } }),
      hook('ignore.kapi.test', '/deny-ignore', [rule], {
        matchConditions: erring,
        failurePolicy: 'Ignore',
        objectSelector: { matchLabels: { policy: 'ignore' } },
      }),
    ]);
    for (const policy of ['fail', 'ignore'])
      expect((await api.post(CMS, { metadata: { name: `erring-${policy}`, labels: { policy } }, data: { a: 'b' } })).status).toBe(201);
    const failed = await api.put(`${CMS}/erring-fail`, { metadata: { name: 'erring-fail', labels: { policy: 'fail' } }, data: { a: 'c' } });
    expect(failed.status).toBe(403);
    expect(failed.body.reason).toBe('Forbidden');
    expect(failed.body.message).toMatch(/^configmaps "erring-fail" is forbidden: expression 'object.data\['absent'\] == 'x'' resulted in error: /);
    const ignored = await api.put(`${CMS}/erring-ignore`, { metadata: { name: 'erring-ignore', labels: { policy: 'ignore' } }, data: { a: 'c' } });
    expect(ignored.status).toBe(200);
    expect(received['/deny-fail']).toBeUndefined();
    expect(received['/deny-ignore']).toBeUndefined();
  });

  test("a mutating webhook's selectors and conditions are judged at its turn, on the object the webhooks before it changed", async () => {
    const turn = { matchLabels: { test: 'turn' } };
    // Configurations run in name order: a-labeller adds the `seen-as` label the later two look for.
    await configure(MUTATING, 'a-labeller', [hook('labeller.kapi.test', '/label-turn', [configMapRule], { objectSelector: turn })]);
    await configure(MUTATING, 'b-condition', [
      hook('condition.kapi.test', '/record-condition', [configMapRule], {
        objectSelector: turn,
        matchConditions: [{ name: 'labelled-before', expression: "'seen-as' in object.metadata.labels" }],
      }),
    ]);
    await configure(MUTATING, 'c-selector', [
      hook('selector.kapi.test', '/record-selector', [configMapRule], { objectSelector: { matchLabels: { test: 'turn', 'seen-as': 'v1' } } }),
    ]);
    const created = await api.post(CMS, { metadata: { name: 'turn', labels: { test: 'turn' } } });
    expect(created.status).toBe(201);
    expect(created.body.metadata.labels).toEqual({ test: 'turn', 'seen-as': 'v1' });
    expect(received['/record-condition'].map((r) => r.name)).toEqual(['turn']);
    expect(received['/record-selector'].map((r) => r.name)).toEqual(['turn']);
  });
});

describe('matchPolicy', () => {
  const deployment = (name: string) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { app: name } },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    },
  });
  const olderVersions = { operations: ['CREATE'], apiGroups: ['apps', 'extensions'], apiVersions: ['v1beta2', 'v1beta1'], resources: ['deployments'] };

  test('Equivalent: a rule for apps/v1beta2 deployments matches apps/v1, the request names the version the webhook asked for', async () => {
    await configure(MUTATING, 'equivalent', [
      hook('equivalent.kapi.test', '/label-equivalent', [olderVersions], { objectSelector: { matchLabels: { app: 'equivalent' } } }),
    ]);
    const res = await api.post('/apis/apps/v1/namespaces/default/deployments', deployment('equivalent'));
    expect(res.status).toBe(201);
    expect(res.body.apiVersion).toBe('apps/v1');
    expect(res.body.metadata.labels['seen-as']).toBe('apps-v1beta2');
    const [request] = received['/label-equivalent'];
    expect(request.kind).toEqual({ group: 'apps', version: 'v1beta2', kind: 'Deployment' });
    expect(request.resource).toEqual({ group: 'apps', version: 'v1beta2', resource: 'deployments' });
    expect(request.requestKind).toEqual({ group: 'apps', version: 'v1', kind: 'Deployment' });
    expect(request.requestResource).toEqual({ group: 'apps', version: 'v1', resource: 'deployments' });
    expect(request.object.apiVersion).toBe('apps/v1beta2');
  });

  test('Exact: the same rule does not match apps/v1', async () => {
    await configure(VALIDATING, 'exact', [
      hook('exact.kapi.test', '/deny-exact', [olderVersions], { matchPolicy: 'Exact', objectSelector: { matchLabels: { app: 'exact' } } }),
    ]);
    expect((await api.post('/apis/apps/v1/namespaces/default/deployments', deployment('exact'))).status).toBe(201);
    expect(received['/deny-exact']).toBeUndefined();
  });

  test('Equivalent across served versions: an autoscaling/v1 rule sees an autoscaling/v2 HPA converted to v1', async () => {
    const rule = { operations: ['CREATE'], apiGroups: ['autoscaling'], apiVersions: ['v1'], resources: ['horizontalpodautoscalers'] };
    await configure(VALIDATING, 'hpa-v1', [hook('hpa.kapi.test', '/record-hpa', [rule])]);
    const res = await api.post('/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers', {
      metadata: { name: 'web' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        maxReplicas: 5,
        metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }],
      },
    });
    expect(res.status).toBe(201);
    const [request] = received['/record-hpa'];
    expect(request.kind).toEqual({ group: 'autoscaling', version: 'v1', kind: 'HorizontalPodAutoscaler' });
    expect(request.requestKind).toEqual({ group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' });
    expect(request.object.apiVersion).toBe('autoscaling/v1');
    expect(request.object.spec.targetCPUUtilizationPercentage).toBe(70);
  });

  test('Equivalent follows the served versions as they change: a version added to a CRD later is matched', async () => {
    const crd = simpleCrd('equiv.example.com', 'gadgets', 'Gadget') as { spec: { versions: Record<string, unknown>[] } };
    crd.spec.versions[0].name = 'v2';
    await createEstablished(api, crd);
    const GADGETS = '/apis/equiv.example.com/v2/namespaces/default/gadgets';
    const gadget = (name: string) => ({ apiVersion: 'equiv.example.com/v2', kind: 'Gadget', metadata: { name } });
    // Admitted once with v2 alone served (what the request's equivalents were then).
    expect((await api.post(GADGETS, gadget('before'))).status).toBe(201);
    const current = (await api.get('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.equiv.example.com')).body;
    current.spec.versions = [
      { ...current.spec.versions[0], storage: false },
      { ...current.spec.versions[0], name: 'v1', storage: true },
    ];
    expect((await api.put('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.equiv.example.com', current)).status).toBe(200);
    await eventually('v1 served', async () => ((await api.get('/apis/equiv.example.com/v1/namespaces/default/gadgets')).status === 200 ? true : undefined));
    const rule = { operations: ['CREATE'], apiGroups: ['equiv.example.com'], apiVersions: ['v1'], resources: ['gadgets'] };
    await configure(VALIDATING, 'gadgets-v1', [hook('gadgets.kapi.test', '/record-gadgets', [rule])]);
    expect((await api.post(GADGETS, gadget('after'))).status).toBe(201);
    const [request] = received['/record-gadgets'];
    expect(request.kind).toEqual({ group: 'equiv.example.com', version: 'v1', kind: 'Gadget' });
    expect(request.requestKind).toEqual({ group: 'equiv.example.com', version: 'v2', kind: 'Gadget' });
    expect(request.object.apiVersion).toBe('equiv.example.com/v1');
  });
});
