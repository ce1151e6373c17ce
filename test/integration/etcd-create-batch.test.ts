import { CreateBatch } from '../../src/storage/etcd/create-batch';
import { Etcd3Kv } from '../../src/storage/etcd/etcd3-kv';
import type { KvEvent, WriteResult } from '../../src/storage/etcd/kv';
import { testEtcdEndpoint, uniquePrefix } from '../harness/shared-etcd';

/** Creates that share etcd transactions (the bootstrap's), over the suite's etcd. */
let kv: Etcd3Kv;
const prefix = uniquePrefix('create-batch');

beforeAll(() => {
  kv = new Etcd3Kv({ endpoints: [testEtcdEndpoint()] });
});

afterAll(async () => {
  await kv.close();
});

const value = (text: string): Buffer => Buffer.from(text);

/** Collects the watch's events of the prefix until `count` have arrived (10 s bound). */
function eventsOf(fromRevision: number, count: number): Promise<KvEvent[]> {
  const events: KvEvent[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (watch.cancel(), reject(new Error(`only ${events.length} of ${count} events after 10 s`))), 10_000);
    const watch = kv.watch(`${prefix}/`, `${prefix}0`, fromRevision, {
      events: (batch) => {
        events.push(...batch);
        if (events.length < count) return;
        clearTimeout(timer);
        watch.cancel();
        resolve(events);
      },
      progress: () => undefined,
      closed: (err) => reject(err),
    });
  });
}

test('creates joined in one turn are one transaction: one revision, each key with its value, in order in the watch', async () => {
  const { revision: before } = await kv.status();
  const batch = new CreateBatch();
  const names = Array.from({ length: 150 }, (_, i) => `${prefix}/a/${String(i).padStart(3, '0')}`);
  const results = await Promise.all(names.map((key) => kv.create(key, value(key), { batch })));
  expect(results.every((r) => r.ok)).toBe(true);
  // etcd takes 128 writes per transaction: 150 creates are two, one after the other.
  const revisions = [...new Set(results.map((r) => r.revision))];
  expect(revisions).toHaveLength(2);
  expect(revisions[1]).toBeGreaterThan(revisions[0]);
  const { kvs } = await kv.range(`${prefix}/a/`, `${prefix}/a0`);
  expect(kvs.map((k) => [k.key, k.value.toString(), k.createRevision === k.modRevision])).toEqual(names.map((k) => [k, k, true]));
  const events = await eventsOf(before + 1, 150);
  expect(events.map((e) => [e.type, e.kv.key])).toEqual(names.map((k) => ['put', k]));
});

test('a key that exists fails only its own create; the others are written, each in its own transaction', async () => {
  const existing = `${prefix}/b/existing`;
  const first = await kv.create(existing, value('first'));
  expect(first.ok).toBe(true);
  const batch = new CreateBatch();
  const keys = [`${prefix}/b/one`, existing, `${prefix}/b/two`];
  const results: WriteResult[] = await Promise.all(keys.map((key) => kv.create(key, value('batched'), { batch })));
  expect(results.map((r) => r.ok)).toEqual([true, false, true]);
  const failed = results[1];
  expect(!failed.ok && failed.current?.value.toString()).toBe('first');
  expect(results[0].revision).not.toBe(results[2].revision);
  expect((await kv.get(existing)).kv?.value.toString()).toBe('first');
  expect((await kv.get(`${prefix}/b/two`)).kv?.value.toString()).toBe('batched');
});

test('creates in later turns are later transactions; a create with a lease is never batched', async () => {
  const batch = new CreateBatch();
  const a = await kv.create(`${prefix}/c/a`, value('a'), { batch });
  const b = await kv.create(`${prefix}/c/b`, value('b'), { batch });
  expect(a.ok && b.ok).toBe(true);
  expect(b.revision).toBeGreaterThan(a.revision);
  const lease = await kv.grantLease(60);
  const [leased, plain] = await Promise.all([
    kv.create(`${prefix}/c/leased`, value('l'), { batch, lease }),
    kv.create(`${prefix}/c/plain`, value('p'), { batch }),
  ]);
  expect(leased.ok && plain.ok).toBe(true);
  expect(leased.revision).not.toBe(plain.revision);
});
