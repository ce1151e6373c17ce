import { eventually } from '../harness/etcd-keys';
import { grantClusterRole, startSecureKapi, type SecureKapi } from '../harness/secure-process';

// Where the API server can be made to send requests: a webhook's client config names a URL that
// kapi dials on every conversion or admission call, with what it reads back in its answers. Ivan
// installs operators: he may write CRDs and webhook configurations, nothing else. What he writes
// is held to kube's ValidateWebhookURL (an https URL of a host, without user info, query or
// fragment, read as Go's url.Parse reads it), and a refused one is not stored.

const IVAN = 'ivan-token-w3bh00k-t4rg3ts';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const VWCS = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const FORM = '; desired format: https://host[/path]';
let kapi: SecureKapi;

const asIvan = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => kapi.asToken(IVAN, method, path, body, headers);

const crd = (conversion: Record<string, unknown>) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.targets.example.com' },
  spec: {
    group: 'targets.example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: ['v1', 'v2'].map((name) => ({
      name,
      served: true,
      storage: name === 'v1',
      schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
    })),
    conversion,
  },
});
const webhookConversion = (clientConfig: Record<string, unknown>, conversionReviewVersions = ['v1']) => ({
  strategy: 'Webhook',
  webhook: { conversionReviewVersions, clientConfig },
});

/** The causes of a 422, as "field: message" lines. */
async function refusal(path: string, body: unknown): Promise<string[]> {
  const res = await asIvan('POST', path, body);
  expect([res.status, res.body?.reason]).toEqual([422, 'Invalid']);
  return (res.body.details.causes as { field: string; message: string }[]).map((c) => `${c.field}: ${c.message}`);
}

beforeAll(async () => {
  kapi = await startSecureKapi([`${IVAN},ivan,uid-ivan`]);
  await grantClusterRole(
    kapi,
    IVAN,
    'ivan',
    'operator-installer',
    [
      { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['create', 'get', 'list', 'patch'] },
      { apiGroups: ['admissionregistration.k8s.io'], resources: ['validatingwebhookconfigurations'], verbs: ['create', 'get'] },
    ],
    { method: 'GET', path: CRDS },
  );
}, 60_000);

afterAll(async () => {
  await kapi?.stop();
});

afterEach(async () => {
  // Nothing refused was stored.
  expect((await kapi.asAdmin('GET', `${CRDS}/widgets.targets.example.com`)).status).toBe(404);
  expect((await kapi.asAdmin('GET', `${VWCS}/targets`)).status).toBe(404);
});

describe("a CRD's conversion webhook, as validateCustomResourceConversion checks it", () => {
  test('a plain-HTTP URL (etcd on loopback, say), user info, a query or a fragment is refused', async () => {
    const url = (u: string) => crd(webhookConversion({ url: u }));
    const at = 'spec.conversion.webhookClientConfig.url';
    expect(await refusal(CRDS, url('http://127.0.0.1:2379/v3/kv/range'))).toEqual([
      `${at}: Invalid value: "http": 'https' is the only allowed URL scheme${FORM}`,
    ]);
    expect(await refusal(CRDS, url('https://admin:secret@10.0.0.1/convert'))).toEqual([
      `${at}: Invalid value: "admin:secret": user information is not permitted in the URL`,
    ]);
    expect(await refusal(CRDS, url('https://@10.0.0.1/convert'))).toEqual([`${at}: Invalid value: "": user information is not permitted in the URL`]);
    expect(await refusal(CRDS, url('https://10.0.0.1/convert?target=internal'))).toEqual([
      `${at}: Invalid value: "target=internal": query parameters are not permitted in the URL`,
    ]);
    expect(await refusal(CRDS, url('https://10.0.0.1/convert#x'))).toEqual([`${at}: Invalid value: "x": fragments are not permitted in the URL`]);
  });

  test('a URL Go reads without a host, or cannot parse, is refused: stored, it made every read of the kind a 500', async () => {
    const url = (u: string) => crd(webhookConversion({ url: u }));
    const at = 'spec.conversion.webhookClientConfig.url';
    // WHATWG URL reads https:///x as the host "x"; Go's url.Parse as no host.
    expect(await refusal(CRDS, url('https:///x'))).toEqual([`${at}: Invalid value: "": host must be specified${FORM}`]);
    expect(await refusal(CRDS, url('not a url'))).toEqual([
      `${at}: Invalid value: "": 'https' is the only allowed URL scheme${FORM}`,
      `${at}: Invalid value: "": host must be specified${FORM}`,
    ]);
    expect(await refusal(CRDS, url('https://10.0.0.1:https/convert'))).toEqual([
      `${at}: Required value: url must be a valid URL: parse "https://10.0.0.1:https/convert": invalid port ":https" after host${FORM}`,
    ]);
  });

  test('the rest of the conversion is checked too: the client config, its service, the review versions, a None strategy with a webhook', async () => {
    const path = 'spec.conversion';
    expect(await refusal(CRDS, crd({ strategy: 'Webhook' }))).toEqual([
      `${path}.webhookClientConfig: Required value: required when strategy is set to Webhook`,
      `${path}.conversionReviewVersions: Required value`,
    ]);
    expect(await refusal(CRDS, crd(webhookConversion({ url: 'https://10.0.0.1/convert', service: { namespace: 'ops', name: 'conv' } }, ['v1', 'v1'])))).toEqual(
      [
        `${path}.webhookClientConfig: Required value: exactly one of url or service is required`,
        `${path}.conversionReviewVersions[1]: Invalid value: "v1": duplicate version`,
      ],
    );
    expect(await refusal(CRDS, crd(webhookConversion({ service: { namespace: 'ops', name: 'conv', port: 70000, path: '/a//b' } }, ['v9'])))).toEqual([
      `${path}.webhookClientConfig.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive`,
      `${path}.webhookClientConfig.service.path: Invalid value: "/a//b": segment[1] may not be empty`,
      `${path}.conversionReviewVersions: Invalid value: ["v9"]: must include at least one of v1, v1beta1`,
    ]);
    expect(await refusal(CRDS, crd({ strategy: 'None', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://10.0.0.1/' } } }))).toEqual([
      `${path}.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook`,
      `${path}.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook`,
    ]);
    expect(await refusal(CRDS, crd({ strategy: 'Other' }))).toEqual([`${path}.strategy: Unsupported value: "Other": supported values: "None", "Webhook"`]);
  });

  test('an https URL of a host is accepted, and an update may not turn it into a plain-HTTP one', async () => {
    const created = await asIvan('POST', CRDS, crd(webhookConversion({ url: 'https://converter.example.com/convert' })));
    expect(created.status).toBe(201);
    // A merge patch, as the CRD's status moves on under a PUT's resourceVersion.
    const res = await asIvan(
      'PATCH',
      `${CRDS}/widgets.targets.example.com`,
      { spec: { conversion: { webhook: { clientConfig: { url: 'http://127.0.0.1:2379/v3/kv/range' } } } } },
      { 'Content-Type': 'application/merge-patch+json' },
    );
    expect([res.status, res.body.details?.causes]).toEqual([
      422,
      [
        {
          reason: 'FieldValueInvalid',
          message: `Invalid value: "http": 'https' is the only allowed URL scheme${FORM}`,
          field: 'spec.conversion.webhookClientConfig.url',
        },
      ],
    ]);
    expect((await kapi.asAdmin('GET', `${CRDS}/widgets.targets.example.com`)).body.spec.conversion.webhook.clientConfig.url).toBe(
      'https://converter.example.com/convert',
    );
    expect((await kapi.asAdmin('DELETE', `${CRDS}/widgets.targets.example.com`)).status).toBe(200);
    await eventually('the CRD is gone', async () => ((await kapi.asAdmin('GET', `${CRDS}/widgets.targets.example.com`)).status === 404 ? true : undefined));
  });
});

describe("an admission webhook's URL, read by the same rules", () => {
  test('a URL Go reads without a host is refused, with the desired format', async () => {
    const config = {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'targets' },
      webhooks: [
        {
          name: 'check.targets.example.com',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          clientConfig: { url: 'https:///validate' },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
        },
      ],
    };
    expect(await refusal(VWCS, config)).toEqual([`webhooks[0].clientConfig.url: Invalid value: "": host must be specified${FORM}`]);
    config.webhooks[0].clientConfig.url = 'http://127.0.0.1:2379/';
    expect(await refusal(VWCS, config)).toEqual([`webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme${FORM}`]);
  });
});
