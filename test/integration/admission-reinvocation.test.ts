import { eventually } from '../harness/etcd-keys';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';
import { reviewResponse, startStandInWebhook, type Review, type StandInWebhook } from '../harness/webhook-server';

/**
 * Reinvocation across the admission chain (k8s.io/apiserver's reinvoker): MutatingAdmissionPolicy
 * runs before MutatingAdmissionWebhook, and when a mutator changed the object the chain runs once
 * more, calling only the IfNeeded policies and webhooks that ran before a change.
 */

const GROUP = '/apis/admissionregistration.k8s.io';
const POLICIES = `${GROUP}/v1/mutatingadmissionpolicies`;
const BINDINGS = `${GROUP}/v1/mutatingadmissionpolicybindings`;
const MUTATING = `${GROUP}/v1/mutatingwebhookconfigurations`;
const CMS = '/api/v1/namespaces/default/configmaps';

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
let webhook: StandInWebhook;
let base: string;
let caBundle: string;
/** Every webhook call: `<path> <configmap name>`. */
const calls: string[] = [];

function patched(review: Review, patch: unknown[]) {
  return reviewResponse(review, { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') });
}

/** The webhook server's behaviours, by path. */
const HANDLERS: Record<string, (review: Review) => unknown> = {
  '/stage': (review) => patched(review, [{ op: 'add', path: '/metadata/labels/stage', value: 'webhook' }]),
  '/nothing': (review) => patched(review, []),
  '/count': (review) => patched(review, []),
};

beforeAll(async () => {
  webhook = await startStandInWebhook((review, path) => {
    calls.push(`${path} ${review.request.name}`);
    return HANDLERS[path](review);
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

const rules = [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }];

/** A policy (and its binding) on config maps labelled `test=<test>`, waited for in the cache the plugin reads. */
async function policy(name: string, test: string, reinvocationPolicy: 'IfNeeded' | 'Never', expression: string): Promise<void> {
  const spec = {
    matchConstraints: { resourceRules: rules, objectSelector: { matchLabels: { test } } },
    reinvocationPolicy,
    mutations: [{ patchType: 'JSONPatch', jsonPatch: { expression } }],
  };
  expect((await api.post(POLICIES, { metadata: { name }, spec })).status).toBe(201);
  expect((await api.post(BINDINGS, { metadata: { name }, spec: { policyName: name } })).status).toBe(201);
  await eventually(`${name} in the cache`, async () =>
    (await api.get(`${POLICIES}/${name}?resourceVersion=0`)).status === 200 && (await api.get(`${BINDINGS}/${name}?resourceVersion=0`)).status === 200
      ? true
      : undefined,
  );
}

/** A mutating webhook configuration on config maps labelled `test=<test>`, one webhook per path. */
async function webhooks(name: string, test: string, hooks: { path: string; reinvocationPolicy?: 'IfNeeded' | 'Never' }[]): Promise<void> {
  const list = hooks.map((h, i) => ({
    name: `${i}-${h.path.slice(1)}.kapi.test`,
    clientConfig: { caBundle, url: `${base}${h.path}` },
    rules,
    objectSelector: { matchLabels: { test } },
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...(h.reinvocationPolicy ? { reinvocationPolicy: h.reinvocationPolicy } : {}),
  }));
  expect((await api.post(MUTATING, { metadata: { name }, webhooks: list })).status).toBe(201);
  await eventually(`${name} in the cache`, async () => ((await api.get(`${MUTATING}/${name}?resourceVersion=0`)).status === 200 ? true : undefined));
}

/** Copies the `stage` label (which only the webhook sets) into `copied`. */
const COPY_STAGE = 'has(object.metadata.labels.stage) ? [JSONPatch{op: "add", path: "/metadata/labels/copied", value: object.metadata.labels.stage}] : []';
/** Appends "x" to the `runs` annotation: one "x" per run of the policy. */
const COUNT_RUNS =
  '[JSONPatch{op: "add", path: "/metadata/annotations", value: {"runs": (has(object.metadata.annotations) && "runs" in object.metadata.annotations ? object.metadata.annotations["runs"] : "") + "x"}}]';

const configMap = (name: string, test: string) => ({ metadata: { name, labels: { test } }, data: { a: 'b' } });

test('a policy with IfNeeded runs again after a webhook changed the object', async () => {
  await policy('copy-if-needed', 'after-webhook', 'IfNeeded', COPY_STAGE);
  await webhooks('stage-after-policy', 'after-webhook', [{ path: '/stage' }]);
  const res = await api.post(CMS, configMap('after-webhook', 'after-webhook'));
  expect(res.status).toBe(201);
  expect(res.body.metadata.labels).toEqual({ test: 'after-webhook', stage: 'webhook', copied: 'webhook' });
  // The webhook (Never) is not called in the second pass.
  expect(calls.filter((c) => c.endsWith(' after-webhook'))).toEqual(['/stage after-webhook']);
});

test('a policy with Never does not', async () => {
  await policy('copy-never', 'never', 'Never', COPY_STAGE);
  await webhooks('stage-never', 'never', [{ path: '/stage' }]);
  const res = await api.post(CMS, configMap('never', 'never'));
  expect(res.status).toBe(201);
  expect(res.body.metadata.labels).toEqual({ test: 'never', stage: 'webhook' });
});

test('a policy with IfNeeded is not run again when nothing changed the object after it', async () => {
  await policy('count-unchanged', 'unchanged', 'IfNeeded', COUNT_RUNS);
  await webhooks('nothing-after-policy', 'unchanged', [{ path: '/nothing', reinvocationPolicy: 'IfNeeded' }]);
  const res = await api.post(CMS, configMap('unchanged', 'unchanged'));
  expect(res.status).toBe(201);
  expect(res.body.metadata.annotations).toEqual({ runs: 'x' });
  // The policy's own change asked for a second pass, but the webhook ran after it and changed nothing: it is not called again either.
  expect(calls.filter((c) => c.endsWith(' unchanged'))).toEqual(['/nothing unchanged']);
});

test("in the second pass a policy's change calls an IfNeeded webhook again; a webhook with Never is called once", async () => {
  await policy('count-both', 'both', 'IfNeeded', COUNT_RUNS);
  await webhooks('count-then-stage', 'both', [{ path: '/count', reinvocationPolicy: 'IfNeeded' }, { path: '/stage' }]);
  const res = await api.post(CMS, configMap('both', 'both'));
  expect(res.status).toBe(201);
  expect(res.body.metadata.annotations).toEqual({ runs: 'xx' });
  expect(res.body.metadata.labels).toEqual({ test: 'both', stage: 'webhook' });
  expect(calls.filter((c) => c.endsWith(' both'))).toEqual(['/count both', '/stage both', '/count both']);
});
