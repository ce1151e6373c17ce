import { eventually } from '../harness/etcd-keys';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';
import { openWatch } from '../harness/watch';

/**
 * --event-ttl: Events are written with an etcd lease of that TTL, renewed by every write, so etcd
 * removes them and watchers see DELETED, as with kube-apiserver.
 */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
const EVENTS = '/api/v1/namespaces/default/events';
const EVENTS_V1 = '/apis/events.k8s.io/v1/namespaces/default/events';
const TTL_MS = 4000;

beforeAll(async () => {
  server = await startTestServer({ eventTtlMs: TTL_MS });
  api = new Api(server.url);
});

afterAll(async () => {
  await server.close();
});

const coreEvent = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name },
  involvedObject: { kind: 'Pod', namespace: 'default', name: 'p' },
  reason: 'Tested',
  message: 'expires',
  type: 'Normal',
  source: { component: 'test' },
});

test('events disappear from GET and list after the TTL, watchers see DELETED; a write renews the TTL; other kinds stay', async () => {
  const cm = await api.post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'stays' } });
  expect(cm.status).toBe(201);
  const first = await api.post(EVENTS, coreEvent('short'));
  expect(first.status).toBe(201);
  const watch = await openWatch(`${server.url}${EVENTS}?watch=1&resourceVersion=${first.body.metadata.resourceVersion}`);
  try {
    const renewed = await api.post(EVENTS, coreEvent('renewed'));
    expect(renewed.status).toBe(201);
    const newStyle = await api.post(EVENTS_V1, {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'new-style' },
      eventTime: new Date().toISOString().replace('Z', '000Z'),
      reportingController: 'example.com/test',
      reportingInstance: 'test-1',
      action: 'Testing',
      reason: 'Tested',
      regarding: { kind: 'Pod', namespace: 'default', name: 'p' },
      type: 'Normal',
    });
    expect(newStyle.status).toBe(201);
    expect((await watch.next()).object.metadata.name).toBe('renewed');
    expect((await watch.next()).object.metadata.name).toBe('new-style');

    await new Promise((r) => setTimeout(r, TTL_MS / 2));
    const updated = await api.put(`${EVENTS}/renewed`, { ...renewed.body, count: 2 });
    expect(updated.status).toBe(200);
    expect((await watch.next()).type).toBe('MODIFIED');

    const gone = new Set<string>();
    while (gone.size < 2) {
      const e = await watch.next(TTL_MS + 5000);
      expect(e.type).toBe('DELETED');
      gone.add(e.object.metadata.name);
    }
    expect([...gone].sort()).toEqual(['new-style', 'short']);
    expect((await api.get(`${EVENTS}/short`)).status).toBe(404);
    expect((await api.get(`${EVENTS_V1}/new-style`)).status).toBe(404);
    // Written TTL/2 later, the renewed event outlives the others.
    expect((await api.get(`${EVENTS}/renewed`)).status).toBe(200);

    const last = await watch.next(TTL_MS + 5000);
    expect(last).toMatchObject({ type: 'DELETED', object: { kind: 'Event', metadata: { name: 'renewed' } } });
    const list = await eventually('an empty list', async () => {
      const l = (await api.get(EVENTS)).body;
      return l.items.length === 0 ? l : undefined;
    });
    expect(list.items).toEqual([]);
    expect((await api.get('/api/v1/namespaces/default/configmaps/stays')).status).toBe(200);
  } finally {
    watch.close();
  }
});
