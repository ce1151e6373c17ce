import { startServerProcess, type ServerProcess } from '../harness/process';
import { configMap, postJson, summarize, timed, timeUntil, type Sample } from '../harness/fault-load';

/** A custom resource with free-form content: no built-in size validation gets in etcd's way. */
const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'blobs.fault.example.com' },
  spec: {
    group: 'fault.example.com',
    scope: 'Namespaced',
    names: { plural: 'blobs', singular: 'blob', kind: 'Blob', listKind: 'BlobList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { data: { type: 'string' } } } },
      },
    ],
  },
};

/**
 * An object too large for etcd (--max-request-bytes, 1.5 MiB by default) is refused with 413 and
 * a message naming the limit, and never degrades anybody else's requests.
 */
describe('an object too large for etcd', () => {
  let kapi: ServerProcess;
  const ns = 'oversized';

  beforeAll(async () => {
    kapi = await startServerProcess();
    const res = await timed('namespace', `${kapi.url}/api/v1/namespaces`, postJson({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
    expect(res.status).toBe(201);
    expect((await timed('crd', `${kapi.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, postJson(CRD))).status).toBe(201);
    await timeUntil(async () => (await timed('list', blobs())).status === 200, 15_000);
  });
  afterAll(async () => {
    await kapi.stop();
  });

  const cms = (): string => `${kapi.url}/api/v1/namespaces/${ns}/configmaps`;
  const blobs = (): string => `${kapi.url}/apis/fault.example.com/v1/namespaces/${ns}/blobs`;
  const blob = (name: string, mib: number, resourceVersion?: string): unknown => ({
    apiVersion: 'fault.example.com/v1',
    kind: 'Blob',
    metadata: { name, ...(resourceVersion ? { resourceVersion } : {}) },
    data: 'x'.repeat(Math.floor(mib * 1024 * 1024)),
  });

  it('is answered 413 naming the limit, on create and on update', async () => {
    for (const size of [1.6, 2.5]) {
      const res = await timed('create', blobs(), postJson(blob(`big-${String(size).replace('.', '-')}`, size)));
      expect(res.status).toBe(413);
      expect(res.body).toMatchObject({ kind: 'Status', code: 413, reason: 'RequestEntityTooLarge' });
      expect(res.body.message).toMatch(/1572864 bytes/);
      expect(res.body.message).toMatch(/--max-request-bytes/);
    }
    const small = await timed('create', blobs(), postJson(blob('grows', 0.001)));
    expect(small.status).toBe(201);
    const grown = await timed('update', `${blobs()}/grows`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(blob('grows', 1.6, small.body.metadata.resourceVersion)),
    });
    expect(grown.status).toBe(413);
    expect(grown.body.reason).toBe('RequestEntityTooLarge');
  });

  it("does not trip anything shared: other clients' requests succeed right after", async () => {
    const oversized = await Promise.all([1, 2, 3, 4, 5].map((i) => timed('create', blobs(), postJson(blob(`huge-${i}`, 1.8)))));
    expect(oversized.map((s) => s.status)).toEqual([413, 413, 413, 413, 413]);
    const others: Sample[] = [];
    for (let i = 0; i < 20; i++) {
      others.push(
        ...(await Promise.all([
          timed('create', cms(), postJson(configMap(`after-${i}`))),
          timed('list', `${cms()}`),
          timed('get', `${kapi.url}/api/v1/namespaces/${ns}`),
        ])),
      );
    }
    const summary = summarize(others);
    console.log(`oversized: 5 refused in ${Math.max(...oversized.map((s) => s.ms))} ms at most; then ${JSON.stringify(summary)}`);
    expect(summary.failed).toBe(0);
  });
});
