import { readFileSync } from 'node:fs';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import yaml from 'js-yaml';
import { createCertificateAuthority } from '../../src/auth/certificates';
import { eventually, RawEtcd } from '../harness/etcd-keys';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';
import { reviewResponse as reply, startStandInWebhook, type Review, type StandInWebhook } from '../harness/webhook-server';

/**
 * admissionregistration.k8s.io/v1 webhook configurations, and webhooks called over HTTPS: a test
 * CA made here, a webhook server on 127.0.0.1 whose paths mutate, refuse, hang or record.
 */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
let webhook: StandInWebhook;
let base: string;
let caBundle: string;
const seen: Record<string, any>[] = [];

const GROUP = '/apis/admissionregistration.k8s.io/v1';
const MUTATING = `${GROUP}/mutatingwebhookconfigurations`;
const VALIDATING = `${GROUP}/validatingwebhookconfigurations`;
const CMS = '/api/v1/namespaces/default/configmaps';

/** The webhook server's behaviours, by path. */
const HANDLERS: Record<string, (review: Review) => Promise<unknown>> = {
  '/label': async (review) => {
    const labels = { ...(review.request.object.metadata.labels ?? {}), touched: 'yes' };
    const patch = Buffer.from(JSON.stringify([{ op: 'add', path: '/metadata/labels', value: labels }])).toString('base64');
    return reply(review, { allowed: true, patchType: 'JSONPatch', patch, warnings: ['labelled by the test webhook'] });
  },
  '/count': async (review) => {
    const annotations = {
      ...(review.request.object.metadata.annotations ?? {}),
      'labels-seen': Object.keys(review.request.object.metadata.labels ?? {})
        .sort()
        .join(','),
    };
    const patch = Buffer.from(JSON.stringify([{ op: 'add', path: '/metadata/annotations', value: annotations }])).toString('base64');
    return reply(review, { allowed: true, patchType: 'JSONPatch', patch });
  },
  '/deny': async (review) => reply(review, { allowed: false, status: { code: 403, reason: 'Forbidden', message: `no ${review.request.name} here` } }),
  '/slow': async (review) => {
    await new Promise((r) => setTimeout(r, 3000).unref());
    return reply(review, { allowed: true });
  },
  '/record': async (review) => {
    seen.push({ version: review.apiVersion, ...review.request });
    return reply(review, { allowed: true });
  },
};

beforeAll(async () => {
  webhook = await startStandInWebhook((review, path) => HANDLERS[path](review), ['127.0.0.1', 'webhook.default.svc']);
  base = webhook.base;
  caBundle = webhook.caBundle;
  server = await startTestServer();
  api = new Api(server.url);
});

afterAll(async () => {
  await server.close();
  await webhook.close();
});

/** A port nothing listens on. */
async function deadPort(): Promise<number> {
  const s = createTcpServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

/** One webhook on configmaps labelled `test=<selector>`, so that each test reaches only its own. */
function hook(name: string, selector: string, clientConfig: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return {
    name,
    clientConfig: { caBundle, ...clientConfig },
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    objectSelector: { matchLabels: { test: selector } },
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...extra,
  };
}

/** Creates a configuration and waits until the watch cache the plugin reads from has it. */
async function configure(path: string, name: string, webhooks: unknown[]): Promise<void> {
  const created = await api.post(path, { metadata: { name }, webhooks });
  expect(created.status).toBe(201);
  await eventually(`${name} in the cache`, async () => ((await api.get(`${path}/${name}?resourceVersion=0`)).status === 200 ? true : undefined));
}

const configMap = (name: string, test: string) => ({ metadata: { name, labels: { test } }, data: { a: 'b' } });

describe('webhook configurations', () => {
  test('are defaulted as kube defaults them', async () => {
    const res = await api.post(VALIDATING, { metadata: { name: 'defaults' }, webhooks: [hook('defaults.kapi.test', 'nothing', { url: `${base}/record` })] });
    expect(res.status).toBe(201);
    const w = res.body.webhooks[0];
    expect([w.failurePolicy, w.matchPolicy, w.timeoutSeconds, w.namespaceSelector, w.rules[0].scope]).toEqual(['Fail', 'Equivalent', 10, {}, '*']);
    const m = await api.post(MUTATING, {
      metadata: { name: 'defaults' },
      webhooks: [hook('defaults.kapi.test', 'nothing', { service: { namespace: 'default', name: 'svc' } })],
    });
    expect(m.status).toBe(201);
    expect([m.body.webhooks[0].reinvocationPolicy, m.body.webhooks[0].clientConfig.service.port]).toEqual(['Never', 443]);
  });

  test.each([
    ['sideEffects Some', { sideEffects: 'Some' }, 'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"'],
    ['no sideEffects', { sideEffects: undefined }, 'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun'],
    ['a timeout of 31s', { timeoutSeconds: 31 }, 'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds'],
    ['no review versions', { admissionReviewVersions: [] }, 'webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1'],
    [
      'an http URL',
      { clientConfig: { url: 'http://127.0.0.1/x' } },
      `webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
    ],
    [
      '"*" with a resource',
      { rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['*', 'pods/exec', 'configmaps'] }] },
      `webhooks[0].rules[0].resources: Invalid value: ["*","pods/exec","configmaps"]: if '*' is present, must not specify other resources without subresources`,
    ],
    [
      'both url and service',
      { clientConfig: { url: 'https://a/', service: { namespace: 'a', name: 'b' } } },
      'webhooks[0].clientConfig: Required value: exactly one of url or service is required',
    ],
  ])('%s is refused with 422', async (_what, override, cause) => {
    const res = await api.post(VALIDATING, { metadata: { name: 'bad' }, webhooks: [{ ...hook('bad.kapi.test', 'x', { url: `${base}/x` }), ...override }] });
    expect(res.status).toBe(422);
    expect(res.body.message).toContain(cause);
  });

  test('names must be unique', async () => {
    const res = await api.post(VALIDATING, {
      metadata: { name: 'dup' },
      webhooks: [hook('dup.kapi.test', 'x', { url: `${base}/x` }), hook('dup.kapi.test', 'x', { url: `${base}/x` })],
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toContain('webhooks[1].name: Duplicate value: "dup.kapi.test"');
  });
});

describe('webhooks', () => {
  test('a mutating webhook adds a label, and its warning reaches the client', async () => {
    await configure(MUTATING, 'label', [hook('label.kapi.test', 'label', { url: `${base}/label` })]);
    const res = await api.post(CMS, configMap('labelled', 'label'));
    expect(res.status).toBe(201);
    expect(res.body.metadata.labels).toEqual({ test: 'label', touched: 'yes' });
    expect(res.headers.get('warning')).toBe('299 - "labelled by the test webhook"');
    expect((await api.get(`${CMS}/labelled`)).body.metadata.labels.touched).toBe('yes');
    const other = await api.post(CMS, configMap('unlabelled', 'other'));
    expect(other.body.metadata.labels).toEqual({ test: 'other' });
  });

  test("a mutating webhook is sent the object with the kind's defaults, as kube's decoder leaves it", async () => {
    await configure(MUTATING, 'pod-defaults', [
      {
        ...hook('defaults.kapi.test', 'defaults', { url: `${base}/record` }),
        rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
      },
    ]);
    seen.length = 0;
    const pod = { metadata: { name: 'webhook-defaults', labels: { test: 'defaults' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
    expect((await api.post('/api/v1/namespaces/default/pods', pod)).status).toBe(201);
    const created = seen.find((r) => r.operation === 'CREATE')!;
    expect(created.object.spec).toMatchObject({
      restartPolicy: 'Always',
      dnsPolicy: 'ClusterFirst',
      schedulerName: 'default-scheduler',
      terminationGracePeriodSeconds: 30,
    });
    expect(created.object.spec.containers[0]).toMatchObject({
      imagePullPolicy: 'Always',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    });
    seen.length = 0;
    const replaced = (await api.get('/api/v1/namespaces/default/pods/webhook-defaults')).body;
    delete replaced.spec.restartPolicy;
    expect((await api.put('/api/v1/namespaces/default/pods/webhook-defaults', replaced)).status).toBe(200);
    expect(seen.find((r) => r.operation === 'UPDATE')!.object.spec.restartPolicy).toBe('Always');
    expect((await api.delete(`${MUTATING}/pod-defaults`)).status).toBe(200);
  });

  test('reinvocationPolicy IfNeeded calls a webhook again after a later one changed the object; Never does not', async () => {
    await configure(MUTATING, 'reinvoke', [
      hook('count-if-needed.kapi.test', 'reinvoke', { url: `${base}/count` }, { reinvocationPolicy: 'IfNeeded' }),
      hook('label-after.kapi.test', 'reinvoke', { url: `${base}/label` }),
    ]);
    await configure(MUTATING, 'once', [
      hook('count-never.kapi.test', 'once', { url: `${base}/count` }, { reinvocationPolicy: 'Never' }),
      hook('label-after.kapi.test', 'once', { url: `${base}/label` }),
    ]);
    const reinvoked = await api.post(CMS, configMap('reinvoked', 'reinvoke'));
    expect(reinvoked.body.metadata.annotations).toEqual({ 'labels-seen': 'test,touched' });
    const once = await api.post(CMS, configMap('once', 'once'));
    expect(once.body.metadata.annotations).toEqual({ 'labels-seen': 'test' });
  });

  test('a validating webhook refuses with its message', async () => {
    await configure(VALIDATING, 'deny', [hook('deny.kapi.test', 'deny', { url: `${base}/deny` })]);
    const res = await api.post(CMS, configMap('refused', 'deny'));
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      reason: 'Forbidden',
      code: 403,
      message: 'admission webhook "deny.kapi.test" denied the request: no refused here',
    });
    expect((await api.get(`${CMS}/refused`)).status).toBe(404);
  });

  test("namespaceSelector matches the labels of the object's namespace", async () => {
    expect((await api.post('/api/v1/namespaces', { metadata: { name: 'guarded', labels: { guard: 'on' } } })).status).toBe(201);
    await configure(VALIDATING, 'guard', [hook('guard.kapi.test', 'guard', { url: `${base}/deny` }, { namespaceSelector: { matchLabels: { guard: 'on' } } })]);
    const refused = await api.post('/api/v1/namespaces/guarded/configmaps', configMap('inside', 'guard'));
    expect([refused.status, refused.body.message]).toEqual([403, 'admission webhook "guard.kapi.test" denied the request: no inside here']);
    expect((await api.post(CMS, configMap('outside', 'guard'))).status).toBe(201);
  });

  test("clientConfig.service is reached through the Service's Endpoints, by its port and path, verified as <service>.<namespace>.svc", async () => {
    const webhookPort = (webhook.server.address() as AddressInfo).port;
    const svc = await api.post('/api/v1/namespaces/default/services', {
      metadata: { name: 'webhook' },
      spec: { ports: [{ name: 'https', port: 8443, targetPort: webhookPort }] },
    });
    expect(svc.status).toBe(201);
    const endpoints = {
      metadata: { name: 'webhook' },
      subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: webhookPort, protocol: 'TCP' }] }],
    };
    expect((await api.post('/api/v1/namespaces/default/endpoints', endpoints)).status).toBe(201);
    await eventually('the endpoints in the cache', async () =>
      (await api.get('/api/v1/namespaces/default/endpoints/webhook?resourceVersion=0')).status === 200 ? true : undefined,
    );
    await configure(MUTATING, 'by-service', [
      hook('service.kapi.test', 'service', { service: { namespace: 'default', name: 'webhook', port: 8443, path: '/label' } }),
    ]);
    const res = await api.post(CMS, configMap('through-service', 'service'));
    expect([res.status, res.body.metadata?.labels]).toEqual([201, { test: 'service', touched: 'yes' }]);
    await configure(VALIDATING, 'no-endpoints', [hook('missing.kapi.test', 'missing', { service: { namespace: 'default', name: 'absent', path: '/record' } })]);
    const missing = await api.post(CMS, configMap('missing', 'missing'));
    expect([missing.status, missing.body.message]).toEqual([
      500,
      'Internal error occurred: failed calling webhook "missing.kapi.test": failed to call webhook: Post "https://absent.default.svc:443/record?timeout=10s": service "absent" not found',
    ]);
  });

  test("without Endpoints, the Service's EndpointSlices give the address", async () => {
    expect(
      (
        await api.post('/api/v1/namespaces/default/services', {
          metadata: { name: 'sliced' },
          spec: { ports: [{ name: 'https', port: 443, targetPort: 9443 }] },
        })
      ).status,
    ).toBe(201);
    await configure(VALIDATING, 'sliced', [
      hook('sliced.kapi.test', 'sliced', { service: { namespace: 'default', name: 'sliced', path: '/x' } }, { timeoutSeconds: 1 }),
    ]);
    const prefix =
      'Internal error occurred: failed calling webhook "sliced.kapi.test": failed to call webhook: Post "https://sliced.default.svc:443/x?timeout=1s": ';
    expect((await api.post(CMS, configMap('no-slice', 'sliced'))).body.message).toBe(`${prefix}no endpoints available for service "sliced"`);
    // A documentation address (TEST-NET-1, unreachable): the call goes there and fails otherwise.
    const slice = {
      metadata: { name: 'sliced-1', labels: { 'kubernetes.io/service-name': 'sliced' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['192.0.2.1'] }],
      ports: [{ name: 'https', port: 9443 }],
    };
    expect((await api.post('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', slice)).status).toBe(201);
    await eventually('the slice in the cache', async () =>
      (await api.get('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/sliced-1?resourceVersion=0')).status === 200 ? true : undefined,
    );
    const res = await api.post(CMS, configMap('sliced', 'sliced'));
    expect(res.status).toBe(500);
    expect(res.body.message.startsWith(prefix)).toBe(true);
    expect(res.body.message).not.toContain('no endpoints available');
  });

  test('a dead webhook: failurePolicy Ignore lets the write through, Fail refuses it with 500', async () => {
    const port = await deadPort();
    await configure(VALIDATING, 'dead', [
      hook('ignore.kapi.test', 'dead-ignore', { url: `https://127.0.0.1:${port}/dead` }, { failurePolicy: 'Ignore' }),
      hook('fail.kapi.test', 'dead-fail', { url: `https://127.0.0.1:${port}/dead` }, { failurePolicy: 'Fail' }),
    ]);
    expect((await api.post(CMS, configMap('ignored', 'dead-ignore'))).status).toBe(201);
    const res = await api.post(CMS, configMap('failed', 'dead-fail'));
    expect(res.status).toBe(500);
    const cause = `failed calling webhook "fail.kapi.test": failed to call webhook: Post "https://127.0.0.1:${port}/dead?timeout=10s": dial tcp 127.0.0.1:${port}: connect: connection refused`;
    expect(res.body).toMatchObject({
      reason: 'InternalError',
      code: 500,
      message: `Internal error occurred: ${cause}`,
      details: { causes: [{ message: cause }] },
    });
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(
      /apiserver_admission_webhook_rejection_count\{name="fail.kapi.test",type="validating",operation="CREATE",error_type="calling_webhook_error",rejection_code="500"\} 1/,
    );
    expect(metrics).toMatch(
      /apiserver_admission_webhook_admission_duration_seconds_count\{name="fail.kapi.test",type="validating",operation="CREATE",rejected="true"\} 1/,
    );
    expect(metrics).toMatch(
      /apiserver_admission_webhook_admission_duration_seconds_count\{name="ignore.kapi.test",type="validating",operation="CREATE",rejected="false"\} 1/,
    );
  });

  test('a webhook slower than its timeoutSeconds fails the write once the timeout passes', async () => {
    await configure(VALIDATING, 'slow', [hook('slow.kapi.test', 'slow', { url: `${base}/slow` }, { timeoutSeconds: 1 })]);
    const started = Date.now();
    const res = await api.post(CMS, configMap('slow', 'slow'));
    expect(Date.now() - started).toBeLessThan(2900);
    expect(res.status).toBe(500);
    expect(res.body.message).toBe(
      `Internal error occurred: failed calling webhook "slow.kapi.test": failed to call webhook: Post "${base}/slow?timeout=1s": context deadline exceeded`,
    );
  });

  test('a TLS certificate that does not chain to caBundle is a failed call', async () => {
    const other = Buffer.from(createCertificateAuthority('another-ca').cert).toString('base64');
    await configure(VALIDATING, 'untrusted', [
      { ...hook('untrusted.kapi.test', 'untrusted', { url: `${base}/record` }), clientConfig: { url: `${base}/record`, caBundle: other } },
    ]);
    const res = await api.post(CMS, configMap('untrusted', 'untrusted'));
    expect(res.status).toBe(500);
    expect(res.body.message).toContain('x509: certificate signed by unknown authority');
  });

  test('dry-run requests reach webhooks declaring None or NoneOnDryRun with dryRun: true, and store nothing', async () => {
    await configure(VALIDATING, 'dry', [
      hook('none.kapi.test', 'dry', { url: `${base}/record` }, { sideEffects: 'None' }),
      hook('none-on-dry-run.kapi.test', 'dry', { url: `${base}/record` }, { sideEffects: 'NoneOnDryRun', admissionReviewVersions: ['v1beta1'] }),
    ]);
    seen.length = 0;
    const res = await api.post(`${CMS}?dryRun=All&fieldManager=test`, configMap('dry', 'dry'));
    expect(res.status).toBe(201);
    const options = { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', dryRun: ['All'], fieldManager: 'test' };
    expect(seen.map((r) => [r.version, r.operation, r.name, r.namespace, r.dryRun, r.object.metadata.labels.test, r.options]).sort()).toEqual([
      ['admission.k8s.io/v1', 'CREATE', 'dry', 'default', true, 'dry', options],
      ['admission.k8s.io/v1beta1', 'CREATE', 'dry', 'default', true, 'dry', options],
    ]);
    expect((await api.get(`${CMS}/dry`)).status).toBe(404);
  });

  test("a pod's DELETE shows webhooks the grace period the pod strategy settled, as rest.BeforeDelete leaves it in the options", async () => {
    await configure(VALIDATING, 'grace', [
      {
        ...hook('grace.kapi.test', 'grace', { url: `${base}/record` }),
        rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
      },
    ]);
    const PODS = '/api/v1/namespaces/default/pods';
    const pod = (name: string, spec: Record<string, unknown>) => ({
      metadata: { name, labels: { test: 'grace' } },
      spec: { containers: [{ name: 'c', image: 'nginx' }], ...spec },
    });
    expect((await api.post(PODS, pod('grace-scheduled', { nodeName: 'no-such-node', terminationGracePeriodSeconds: 45 }))).status).toBe(201);
    expect((await api.post(PODS, pod('grace-unscheduled', {}))).status).toBe(201);
    seen.length = 0;
    expect((await api.delete(`${PODS}/grace-scheduled`)).status).toBe(200);
    expect((await api.delete(`${PODS}/grace-unscheduled`, { body: { gracePeriodSeconds: 20 } })).status).toBe(200);
    expect((await api.delete(`${PODS}/grace-scheduled?gracePeriodSeconds=0`)).status).toBe(200);
    const options = (name: string) => seen.filter((r) => r.name === name).map((r) => r.options);
    expect(options('grace-scheduled')).toEqual([
      { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', gracePeriodSeconds: 45 },
      // Shortening a deletion under way: the request's own period.
      { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', gracePeriodSeconds: 0 },
      { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', gracePeriodSeconds: 0 },
    ]);
    // Not scheduled: deleted at once, whatever was asked.
    expect(new Set(options('grace-unscheduled').map((o) => o.gracePeriodSeconds))).toEqual(new Set([0]));
  });

  test('a dry run that would reach a webhook with side effects (stored before v1 refused them) fails with 400', async () => {
    const etcd = new RawEtcd();
    try {
      const config = {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'legacy', uid: 'u-legacy', creationTimestamp: '2024-01-01T00:00:00Z' },
        webhooks: [{ ...hook('legacy.kapi.test', 'legacy', { url: `${base}/record` }), sideEffects: 'Some', failurePolicy: 'Fail', timeoutSeconds: 10 }],
      };
      await etcd.put(`${server.prefix}/validatingwebhookconfigurations/legacy`, JSON.stringify(config));
      await eventually('legacy in the cache', async () => ((await api.get(`${VALIDATING}/legacy?resourceVersion=0`)).status === 200 ? true : undefined));
      const dry = await api.post(`${CMS}?dryRun=All`, configMap('legacy', 'legacy'));
      expect(dry.status).toBe(400);
      expect(dry.body).toMatchObject({ reason: 'BadRequest', message: 'admission webhook "legacy.kapi.test" does not support dry run' });
      expect((await api.post(CMS, configMap('legacy', 'legacy'))).status).toBe(201);
    } finally {
      etcd.close();
    }
  });

  test("ingress-nginx's webhook configuration is called for an Ingress: with no controller running, kube's message", async () => {
    const docs = yaml.loadAll(readFileSync(path.join(__dirname, '../fixtures/bundles/ingress-nginx.yaml'), 'utf8')) as {
      kind: string;
      metadata: { name: string };
    }[];
    const pick = (kind: string, name: string) => docs.find((d) => d.kind === kind && d.metadata.name === name)!;
    expect((await api.post('/api/v1/namespaces', pick('Namespace', 'ingress-nginx'))).status).toBe(201);
    expect((await api.post('/api/v1/namespaces/ingress-nginx/services', pick('Service', 'ingress-nginx-controller-admission'))).status).toBe(201);
    const config = pick('ValidatingWebhookConfiguration', 'ingress-nginx-admission') as unknown as { webhooks: unknown[] };
    await configure(VALIDATING, 'ingress-nginx-admission', config.webhooks);
    const ingress = {
      metadata: { name: 'web' },
      spec: {
        ingressClassName: 'nginx',
        rules: [{ host: 'a.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }],
      },
    };
    const res = await api.post('/apis/networking.k8s.io/v1/namespaces/ingress-nginx/ingresses', ingress);
    expect([res.status, res.body.message]).toEqual([
      500,
      'Internal error occurred: failed calling webhook "validate.nginx.ingress.kubernetes.io": failed to call webhook: Post "https://ingress-nginx-controller-admission.ingress-nginx.svc:443/networking/v1/ingresses?timeout=10s": no endpoints available for service "ingress-nginx-controller-admission"',
    ]);
    expect((await api.delete(`${VALIDATING}/ingress-nginx-admission`)).status).toBe(200);
  });

  test('webhook configurations are never sent to webhooks: a failing catch-all webhook can still be removed', async () => {
    const port = await deadPort();
    const all = {
      name: 'all.kapi.test',
      clientConfig: { url: `https://127.0.0.1:${port}/dead`, caBundle },
      rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'] }],
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
    };
    await configure(VALIDATING, 'catch-all', [all]);
    expect((await api.post(CMS, configMap('blocked', 'none'))).status).toBe(500);
    expect((await api.post(MUTATING, { metadata: { name: 'still-writable' }, webhooks: [] })).status).toBe(201);
    expect((await api.delete(`${VALIDATING}/catch-all`)).status).toBe(200);
  });
});
