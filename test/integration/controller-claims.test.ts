import { Api } from '../harness/http';
import { eventually } from '../harness/etcd-keys';
import { startTestServer } from '../harness/server';

/**
 * ControllerRefManager.ClaimObject, seen through a Deployment and its ReplicaSets: an owned object
 * the selector no longer matches is released even while it is being deleted (only the owner's own
 * deletion stops a release).
 */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
const APPS = '/apis/apps/v1/namespaces/default';
const MERGE = 'application/merge-patch+json';

beforeAll(async () => {
  server = await startTestServer();
  api = new Api(server.url);
});

afterAll(async () => {
  await server.close();
});

interface ReplicaSet {
  metadata: { name: string; ownerReferences?: { uid: string }[]; deletionTimestamp?: string };
}

test('a ReplicaSet being deleted that its Deployment no longer selects is released', async () => {
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'claims' },
    spec: {
      replicas: 0,
      selector: { matchLabels: { app: 'claims' } },
      template: { metadata: { labels: { app: 'claims' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
    },
  };
  const created = await api.post(`${APPS}/deployments`, deployment);
  expect(created.status).toBe(201);
  const owned = await eventually('the ReplicaSet', async () => {
    const items = (await api.get(`${APPS}/replicasets?labelSelector=app%3Dclaims`)).body.items as ReplicaSet[];
    return items.find((rs) => rs.metadata.ownerReferences?.some((r) => r.uid === created.body.metadata.uid));
  });
  const path = `${APPS}/replicasets/${owned.metadata.name}`;
  // A finalizer keeps it while it is being deleted; then its labels stop matching the selector.
  expect((await api.patch(path, { metadata: { finalizers: ['example.com/hold'] } }, MERGE)).status).toBe(200);
  expect((await api.delete(path)).status).toBe(200);
  expect((await api.patch(path, { metadata: { labels: { app: 'elsewhere' } } }, MERGE)).status).toBe(200);
  try {
    const released = await eventually('the release', async () => {
      const rs = (await api.get(path)).body as ReplicaSet;
      return rs.metadata.ownerReferences === undefined ? rs : undefined;
    });
    expect(released.metadata.deletionTimestamp).toBeDefined();
  } finally {
    await api.patch(path, { metadata: { finalizers: null } }, MERGE);
  }
});
