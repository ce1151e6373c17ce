import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createCertificateAuthority, createLeafCertificate } from '../../src/auth/certificates';
import { kubectl, serverProcessForFile } from '../harness/process';

/**
 * Operators' install bundles that carry admission webhooks, applied whole with kubectl as a new
 * user would; then a stand-in for the operator's webhook (HTTPS on 127.0.0.1, its own test CA)
 * is wired in as the operator would be: Endpoints for its Service, the caBundle patched into the
 * configurations as its cert job or cainjector does. A create of a covered kind must reach it.
 * gatekeeper.yaml is open-policy-agent/gatekeeper's deploy/gatekeeper.yaml (commit dd8507eb);
 * cert-manager's static manifest exists only as a release asset, not in its repository.
 */

const kapi = serverProcessForFile();
const k = (...args: string[]) => kubectl(kapi.url, args);
const BUNDLES = path.join(__dirname, '../fixtures/bundles');

type Review = { apiVersion: string; request: { uid: string; kind: { kind: string }; name: string; namespace?: string; operation: string } };
const seen: { path: string; review: Review }[] = [];

let webhook: Server;
let webhookPort: number;
let caBundle: string;

beforeAll(async () => {
  const ca = createCertificateAuthority('operator-webhook-test-ca');
  const leaf = createLeafCertificate(ca, {
    commonName: 'stand-in',
    usage: 'server',
    hosts: ['gatekeeper-webhook-service.gatekeeper-system.svc', 'ingress-nginx-controller-admission.ingress-nginx.svc'],
    validDays: 1,
  });
  caBundle = Buffer.from(ca.cert).toString('base64');
  webhook = createServer({ cert: leaf.cert, key: leaf.key }, (req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      const review = JSON.parse(text) as Review;
      seen.push({ path: new URL(req.url ?? '/', 'https://x').pathname, review });
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true } }));
    });
  });
  await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', r));
  webhookPort = (webhook.address() as AddressInfo).port;
});

afterAll(async () => {
  webhook.closeAllConnections();
  await new Promise((r) => webhook.close(r));
});

async function ok(args: string[], input?: string): Promise<string> {
  const res = await kubectl(kapi.url, args, input);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${res.stderr}`);
  return res.stdout;
}

/** The operator's Service, backed by the stand-in: Endpoints on 127.0.0.1 under the Service port's name. */
async function standIn(namespace: string, service: string, portName: string): Promise<void> {
  const endpoints = {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: service, namespace },
    subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: portName, port: webhookPort, protocol: 'TCP' }] }],
  };
  await ok(['apply', '-f', '-'], JSON.stringify(endpoints));
}

/** What the operator's certificate job or cainjector does: the CA that signed the webhook's certificate, into every webhook of a configuration. */
async function injectCa(kind: string, name: string): Promise<void> {
  const count = JSON.parse(await ok(['get', kind, name, '-o', 'json'])).webhooks.length as number;
  const patch = Array.from({ length: count }, (_, i) => ({ op: 'add', path: `/webhooks/${i}/clientConfig/caBundle`, value: caBundle }));
  await ok(['patch', kind, name, '--type=json', '-p', JSON.stringify(patch)]);
}

/** Tries a write until the webhook configuration is in the plugin's cache and the stand-in has seen the request. */
async function reaches(pathOf: string, kind: string, name: string, write: () => Promise<void>): Promise<Review> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    await write();
    const hit = seen.find((s) => s.path === pathOf && s.review.request.kind.kind === kind && s.review.request.name === name);
    if (hit) return hit.review;
    if (Date.now() > deadline)
      throw new Error(
        `no AdmissionReview for ${kind} ${name} at ${pathOf}; seen: ${JSON.stringify(seen.map((s) => [s.path, s.review.request.kind.kind, s.review.request.name]))}`,
      );
    await new Promise((r) => setTimeout(r, 200));
  }
}

test("gatekeeper's deploy/gatekeeper.yaml applies whole; its webhooks are called for a ConfigMap and a Namespace", async () => {
  const applied = await ok(['apply', '-f', path.join(BUNDLES, 'gatekeeper.yaml')]);
  expect(applied).toContain('validatingwebhookconfiguration.admissionregistration.k8s.io/gatekeeper-validating-webhook-configuration created');
  expect(applied).toContain('mutatingwebhookconfiguration.admissionregistration.k8s.io/gatekeeper-mutating-webhook-configuration created');
  expect(applied).toContain('customresourcedefinition.apiextensions.k8s.io/constrainttemplates.templates.gatekeeper.sh created');
  await standIn('gatekeeper-system', 'gatekeeper-webhook-service', 'https-webhook-server');
  await injectCa('validatingwebhookconfiguration', 'gatekeeper-validating-webhook-configuration');
  await injectCa('mutatingwebhookconfiguration', 'gatekeeper-mutating-webhook-configuration');

  // Its webhooks declare sideEffects None: a server dry run reaches them too, and may be repeated.
  const admitted = await reaches('/v1/admit', 'ConfigMap', 'policy-checked', async () => {
    await ok(['create', 'configmap', 'policy-checked', '-n', 'default', '--from-literal=a=b', '--dry-run=server']);
  });
  expect(admitted.apiVersion).toBe('admission.k8s.io/v1');
  expect([admitted.request.operation, admitted.request.namespace]).toEqual(['CREATE', 'default']);
  expect(seen.some((s) => s.path === '/v1/mutate' && s.review.request.name === 'policy-checked')).toBe(true);

  // check-ignore-label.gatekeeper.sh guards namespaces with failurePolicy Fail: it is reachable, so the create succeeds.
  const label = await reaches('/v1/admitlabel', 'Namespace', 'team-a', async () => {
    const res = await k('create', 'namespace', 'team-a');
    // Until the configuration with the CA is in the plugin's cache, the call fails, and so does the create.
    if (res.code !== 0 && !res.stderr.includes('failed calling webhook')) throw new Error(res.stderr);
  });
  expect(label.request.operation).toBe('CREATE');
}, 120_000);

test("ingress-nginx's deploy.yaml applies whole; its validating webhook is called for an Ingress", async () => {
  const applied = await ok(['apply', '-f', path.join(BUNDLES, 'ingress-nginx.yaml')]);
  expect(applied).toContain('validatingwebhookconfiguration.admissionregistration.k8s.io/ingress-nginx-admission created');
  await standIn('ingress-nginx', 'ingress-nginx-controller-admission', 'https-webhook');
  await injectCa('validatingwebhookconfiguration', 'ingress-nginx-admission');
  const ingress = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      ingressClassName: 'nginx',
      rules: [{ host: 'web.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }],
    },
  };
  const review = await reaches('/networking/v1/ingresses', 'Ingress', 'web', async () => {
    const res = await kubectl(kapi.url, ['apply', '-f', '-'], JSON.stringify(ingress));
    if (res.code !== 0 && !res.stderr.includes('failed calling webhook')) throw new Error(res.stderr);
  });
  expect([review.apiVersion, review.request.operation, review.request.namespace]).toEqual(['admission.k8s.io/v1', 'CREATE', 'default']);
  expect(JSON.parse(await ok(['get', 'ingress', 'web', '-n', 'default', '-o', 'json'])).spec.ingressClassName).toBe('nginx');
}, 120_000);
