import { eventually } from '../harness/etcd-keys';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';
import { reviewResponse, startStandInWebhook, type StandInWebhook } from '../harness/webhook-server';

/**
 * Kubernetes' CEL libraries (lists, regex, url, quantity, ip, cidr, semver, sets, format) as admission
 * sees them: ValidatingAdmissionPolicies that use each one allow and deny real requests, a
 * library's run-time error is reported in kube's words, and a webhook's matchCondition uses one.
 */

const POLICIES = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const BINDINGS = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';
const VALIDATING = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const CMS = '/api/v1/namespaces/default/configmaps';

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
let webhook: StandInWebhook;
let webhookURL: string;
let caBundle: string;
const reviewed: string[] = [];

beforeAll(async () => {
  webhook = await startStandInWebhook((review) => {
    reviewed.push(review.request.name);
    return reviewResponse(review, { allowed: false, status: { code: 403, message: 'refused by the webhook' } });
  });
  webhookURL = `${webhook.base}/deny`;
  caBundle = webhook.caBundle;
  server = await startTestServer();
  api = new Api(server.url);
});

afterAll(async () => {
  await server.close();
  await webhook.close();
});

/** A policy on config maps labelled `test=<name>`, with a Deny binding, both in the cache before the test goes on. */
async function install(name: string, validations: Record<string, unknown>[], extra: Record<string, unknown> = {}): Promise<void> {
  const spec = {
    matchConstraints: {
      resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      objectSelector: { matchLabels: { test: name } },
    },
    validations,
    ...extra,
  };
  expect((await api.post(POLICIES, { metadata: { name }, spec })).status).toBe(201);
  expect((await api.post(BINDINGS, { metadata: { name }, spec: { policyName: name, validationActions: ['Deny'] } })).status).toBe(201);
  await eventually(`${name} in the cache`, async () =>
    (await api.get(`${POLICIES}/${name}?resourceVersion=0`)).status === 200 && (await api.get(`${BINDINGS}/${name}?resourceVersion=0`)).status === 200
      ? true
      : undefined,
  );
}

const create = (name: string, test: string, data: Record<string, string>) => api.post(CMS, { metadata: { name, labels: { test } }, data });

const denial = (policy: string, message: string) =>
  `configmaps "${policy}-denied" is forbidden: ValidatingAdmissionPolicy '${policy}' with binding '${policy}' denied request: ${message}`;

/** One policy per library: the first data allowed, the second denied with the policy's message. */
const cases: { library: string; expression: string; allowed: Record<string, string>; denied: Record<string, string> }[] = [
  {
    library: 'quantity',
    expression: "quantity(object.data.memory).compareTo(quantity('1Gi')) <= 0 && quantity('1Gi') == quantity('1024Mi')",
    allowed: { memory: '1024Mi' },
    denied: { memory: '1.5Gi' },
  },
  {
    library: 'lists',
    expression: "object.data.ports.split(',').map(p, int(p)).isSorted() && object.data.ports.split(',').map(p, int(p)).max() < 1024",
    allowed: { ports: '22,80,443' },
    denied: { ports: '80,22' },
  },
  {
    library: 'regex',
    expression: "object.data.text.findAll('[0-9]+').size() <= 2 && object.data.text.find('[a-z]+') != ''",
    allowed: { text: 'abc 1 2' },
    denied: { text: 'abc 1 2 3' },
  },
  {
    library: 'url',
    expression:
      "isURL(object.data.endpoint) && url(object.data.endpoint).getScheme() == 'https' && url(object.data.endpoint).getHostname().endsWith('.example.com')",
    allowed: { endpoint: 'https://api.example.com:8443/v1' },
    denied: { endpoint: 'http://api.example.com/v1' },
  },
  {
    library: 'ip',
    expression: 'isIP(object.data.address) && ip(object.data.address).isGlobalUnicast() && ip.isCanonical(object.data.address)',
    allowed: { address: '2001:db8::1' },
    denied: { address: '127.0.0.1' },
  },
  {
    library: 'cidr',
    expression: "cidr('10.0.0.0/8').containsCIDR(object.data.subnet) && string(cidr(object.data.subnet).masked()) == object.data.subnet",
    allowed: { subnet: '10.1.0.0/16' },
    denied: { subnet: '10.1.0.1/16' },
  },
  {
    library: 'semver',
    expression: "semver(object.data.version, true).isGreaterThan(semver('1.2.0')) && semver(object.data.version, true).major() == 1",
    allowed: { version: 'v1.3' },
    denied: { version: '1.1.9' },
  },
  { library: 'sets', expression: "sets.contains(['a', 'b', 'c'], object.data.features.split(','))", allowed: { features: 'a,c' }, denied: { features: 'a,d' } },
];

describe('ValidatingAdmissionPolicies using Kubernetes CEL libraries', () => {
  test.each(cases)('$library: allowed and denied by the library', async ({ library, expression, allowed, denied }) => {
    await install(library, [{ expression, message: `${library} check failed` }]);
    expect((await create(`${library}-allowed`, library, allowed)).status).toBe(201);
    const res = await create(`${library}-denied`, library, denied);
    expect(res.status).toBe(422);
    expect(res.body.reason).toBe('Invalid');
    expect(res.body.message).toBe(denial(library, `${library} check failed`));
  });

  test("format: validate's optional list of kube's messages as the policy's message", async () => {
    await install('format', [
      {
        expression: '!format.dns1123Label().validate(object.data.host).hasValue()',
        messageExpression: "format.dns1123Label().validate(object.data.host).value().join('; ')",
      },
    ]);
    expect((await create('format-allowed', 'format', { host: 'my-host' })).status).toBe(201);
    const res = await create('format-denied', 'format', { host: 'My_Host' });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(
      denial(
        'format',
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      ),
    );
  });

  test("a library's run-time error refuses the request in kube's words under failurePolicy Fail", async () => {
    await install('bad-quantity', [{ expression: "quantity(object.data.size).isLessThan(quantity('1G'))" }]);
    const res = await create('bad-quantity-denied', 'bad-quantity', { size: 'lots' });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(
      denial(
        'bad-quantity',
        "expression 'quantity(object.data.size).isLessThan(quantity('1G'))' resulted in error: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
      ),
    );
    await install('bad-ip', [{ expression: 'ip(object.data.address).family() == 4' }], { failurePolicy: 'Ignore' });
    expect((await create('bad-ip-allowed', 'bad-ip', { address: '999.1.1.1' })).status).toBe(201);
  });
});

describe('webhook matchConditions', () => {
  test('a condition using the cidr library decides which requests reach the webhook', async () => {
    const hook = {
      name: 'cidr.kapi.test',
      clientConfig: { caBundle, url: webhookURL },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
      objectSelector: { matchLabels: { test: 'webhook-cidr' } },
      matchConditions: [
        { name: 'private-address', expression: "has(object.data) && 'address' in object.data && cidr('192.168.0.0/16').containsIP(object.data.address)" },
      ],
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
    };
    expect((await api.post(VALIDATING, { metadata: { name: 'cidr-condition' }, webhooks: [hook] })).status).toBe(201);
    await eventually('the webhook configuration in the cache', async () =>
      (await api.get(`${VALIDATING}/cidr-condition?resourceVersion=0`)).status === 200 ? true : undefined,
    );
    expect((await create('public', 'webhook-cidr', { address: '8.8.8.8' })).status).toBe(201);
    const refused = await create('private', 'webhook-cidr', { address: '192.168.1.20' });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('admission webhook "cidr.kapi.test" denied the request: refused by the webhook');
    expect(reviewed).toEqual(['private']);
  });
});
