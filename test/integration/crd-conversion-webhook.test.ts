import { createEstablished } from '../harness/crds';
import { eventually, RawEtcd } from '../harness/etcd-keys';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';
import { openWatch } from '../harness/watch';
import { startStandInWebhook, type StandInWebhook } from '../harness/webhook-server';

/**
 * A CRD with `conversion.strategy: Webhook`, as apiextensions-apiserver serves it: objects are
 * stored in the storage version, and every read or write in another version goes through the
 * webhook, found through its Service's Endpoints. v1 spells the size as a string (`spec.size`),
 * v2 as a number (`spec.count`), so a restamped object is visibly wrong.
 */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
let etcd: RawEtcd;
let converter: StandInWebhook;

type Review = { apiVersion: string; kind: string; request: { uid: string; desiredAPIVersion: string; objects: any[] } };
const reviews: Review[] = [];
/** How the stand-in misbehaves: a renamed object, or a refusal. */
let mode: 'convert' | 'rename' | 'fail' = 'convert';

const GROUP = 'conv.example.com';
const THINGS = (version: string, ns = 'default') => `/apis/${GROUP}/${version}/namespaces/${ns}/things`;

function convert(obj: any, to: string): any {
  const spec = { ...obj.spec };
  if (to.endsWith('/v2') && 'size' in spec) {
    spec.count = Number(spec.size);
    delete spec.size;
  }
  if (to.endsWith('/v1') && 'count' in spec) {
    spec.size = String(spec.count);
    delete spec.count;
  }
  const metadata = { ...obj.metadata, labels: { ...obj.metadata.labels, 'converted-to': to.split('/')[1] } };
  if (mode === 'rename') metadata.name = 'someone-else';
  return { ...obj, apiVersion: to, spec, metadata };
}

function answer(body: unknown): unknown {
  const review = body as Review;
  reviews.push(review);
  const { uid, desiredAPIVersion, objects } = review.request;
  if (mode === 'fail')
    return {
      apiVersion: review.apiVersion,
      kind: 'ConversionReview',
      response: { uid, result: { status: 'Failure', message: 'v1 size "x" is not a number' } },
    };
  return {
    apiVersion: review.apiVersion,
    kind: 'ConversionReview',
    response: { uid, result: { status: 'Success' }, convertedObjects: objects.map((o) => convert(o, desiredAPIVersion)) },
  };
}

beforeAll(async () => {
  server = await startTestServer();
  api = new Api(server.url);
  etcd = new RawEtcd();
  converter = await startStandInWebhook((review) => answer(review), ['converter.default.svc']);
  const port = Number(new URL(converter.base).port);
  await api.post('/api/v1/namespaces/default/services', {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'converter' },
    spec: { ports: [{ name: 'https', port: 443, targetPort: port }] },
  });
  await api.post('/api/v1/namespaces/default/endpoints', {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'converter' },
    subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port }] }],
  });
  const schema = (spec: Record<string, unknown>) => ({
    openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } },
  });
  await createEstablished(api, {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `things.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural: 'things', singular: 'thing', kind: 'Thing' },
      versions: [
        { name: 'v1', served: true, storage: true, schema: schema({ size: { type: 'string' } }) },
        { name: 'v2', served: true, storage: false, schema: schema({ count: { type: 'integer' } }) },
      ],
      conversion: {
        strategy: 'Webhook',
        webhook: {
          conversionReviewVersions: ['v1'],
          clientConfig: { caBundle: converter.caBundle, service: { namespace: 'default', name: 'converter', path: '/convert', port: 443 } },
        },
      },
    },
  });
  expect((await api.post(THINGS('v1'), { apiVersion: `${GROUP}/v1`, kind: 'Thing', metadata: { name: 't1' }, spec: { size: '3' } })).status).toBe(201);
});

afterAll(async () => {
  await converter?.close();
  etcd?.close();
  await server?.close();
});

beforeEach(() => {
  mode = 'convert';
  reviews.length = 0;
});

test('reading another version calls the webhook with a ConversionReview and serves what it answers', async () => {
  const res = await api.get(`${THINGS('v2')}/t1`);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ apiVersion: `${GROUP}/v2`, kind: 'Thing', spec: { count: 3 }, metadata: { name: 't1', labels: { 'converted-to': 'v2' } } });
  expect(res.body.spec.size).toBeUndefined();
  expect(reviews).toHaveLength(1);
  expect(reviews[0]).toMatchObject({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { desiredAPIVersion: `${GROUP}/v2` } });
  expect(reviews[0].request.uid).toMatch(/^[0-9a-f-]{36}$/);
  expect(reviews[0].request.objects).toMatchObject([{ apiVersion: `${GROUP}/v1`, spec: { size: '3' }, metadata: { name: 't1' } }]);
  // The storage version needs no conversion.
  reviews.length = 0;
  expect((await api.get(`${THINGS('v1')}/t1`)).body.spec).toEqual({ size: '3' });
  expect(reviews).toHaveLength(0);
});

test('a write in another version is stored in the storage version, converted by the webhook', async () => {
  const created = await api.post(THINGS('v2'), { apiVersion: `${GROUP}/v2`, kind: 'Thing', metadata: { name: 't2' }, spec: { count: 5 } });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ apiVersion: `${GROUP}/v2`, spec: { count: 5 } });
  const stored = JSON.parse((await etcd.get(`${server.prefix}/${GROUP}/things/default/t2`))!.toString());
  expect(stored).toMatchObject({ apiVersion: `${GROUP}/v1`, spec: { size: '5' } });
  expect(reviews.map((r) => r.request.desiredAPIVersion)).toEqual([`${GROUP}/v1`, `${GROUP}/v2`]);
});

test('a list is converted in one call; a watch converts each event', async () => {
  const list = await api.get(THINGS('v2'));
  expect(list.status).toBe(200);
  expect(list.body.apiVersion).toBe(`${GROUP}/v2`);
  expect(list.body.items.map((i: any) => [i.metadata.name, i.spec.count])).toEqual([
    ['t1', 3],
    ['t2', 5],
  ]);
  expect(reviews).toHaveLength(1);
  expect(reviews[0].request.objects.map((o: any) => o.metadata.name)).toEqual(['t1', 't2']);

  const watch = await openWatch(`${server.url}${THINGS('v2')}?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`);
  await api.post(THINGS('v1'), { apiVersion: `${GROUP}/v1`, kind: 'Thing', metadata: { name: 't3' }, spec: { size: '7' } });
  const event = await watch.next();
  watch.close();
  expect(event).toMatchObject({ type: 'ADDED', object: { apiVersion: `${GROUP}/v2`, metadata: { name: 't3' }, spec: { count: 7 } } });
});

test('without a reachable webhook, reads of another version fail as kube fails them; the storage version still serves', async () => {
  await api.delete('/api/v1/namespaces/default/endpoints/converter');
  // The mirroring controller's EndpointSlices of the Endpoints go with them.
  await eventually('no slices of converter', async () => {
    const slices = await api.get('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io/service-name%3Dconverter');
    return slices.body.items.length === 0 ? true : undefined;
  });
  try {
    const read = await api.get(`${THINGS('v2')}/t1`);
    expect(read.status).toBe(500);
    expect(read.body).toMatchObject({ kind: 'Status', status: 'Failure', code: 500 });
    expect(read.body.reason).toBeUndefined();
    expect(read.body.message).toBe(
      `conversion webhook for ${GROUP}/v1, Kind=Thing failed: Post "https://converter.default.svc:443/convert?timeout=30s": no endpoints available for service "converter"`,
    );
    const write = await api.post(THINGS('v2'), { apiVersion: `${GROUP}/v2`, kind: 'Thing', metadata: { name: 'lost' }, spec: { count: 1 } });
    expect(write.status).toBe(500);
    expect(write.body).toMatchObject({ reason: 'InternalError' });
    expect(write.body.message).toMatch(
      /^Internal error occurred: conversion webhook for conv\.example\.com\/v2, Kind=Thing failed: Post "https:\/\/converter\.default\.svc:443\/convert\?timeout=30s": /,
    );
    expect(await etcd.get(`${server.prefix}/${GROUP}/things/default/lost`)).toBeNull();
    expect((await api.get(`${THINGS('v1')}/t1`)).status).toBe(200);
  } finally {
    const port = Number(new URL(converter.base).port);
    await api.post('/api/v1/namespaces/default/endpoints', {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'converter' },
      subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port }] }],
    });
  }
});

test("a webhook's refusal, or an answer that changes the object's identity, is an error", async () => {
  mode = 'fail';
  const refused = await api.get(`${THINGS('v2')}/t1`);
  expect(refused.status).toBe(500);
  expect(refused.body.message).toBe(`conversion webhook for ${GROUP}/v1, Kind=Thing failed: v1 size "x" is not a number`);
  mode = 'rename';
  const renamed = await api.get(`${THINGS('v2')}/t1`);
  expect(renamed.status).toBe(500);
  expect(renamed.body.message).toBe(
    `conversion webhook for ${GROUP}/v1, Kind=Thing returned invalid converted object at index 0: must have the same name: t1 != someone-else`,
  );
});
