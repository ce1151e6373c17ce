import { Etcd3Kv } from '../../src/storage/etcd/etcd3-kv';
import { isStorageError } from '../../src/storage/storage-error';
import { startTestEtcd, type TestEtcd } from '../harness/etcd';

/** Reads of latest values made in one turn share a read-only transaction (Etcd3Kv.get), on an etcd of this file's own, whose call counters it reads. */
let etcd: TestEtcd;
let kv: Etcd3Kv;
const prefix = '/read-batch';
const observed: string[] = [];

beforeAll(async () => {
  etcd = await startTestEtcd();
  kv = new Etcd3Kv({ endpoints: [etcd.endpoint], observe: (operation, key) => observed.push(`${operation} ${key}`) });
}, 60_000);

afterAll(async () => {
  await kv?.close();
  await etcd?.stop();
});

/** etcd's own count of the gRPC calls of a method it answered (its /metrics). */
async function handled(method: 'Range' | 'Txn'): Promise<number> {
  const text = await (await fetch(`${etcd.endpoint}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('grpc_server_handled_total{') && l.includes(`grpc_method="${method}"`) && l.includes('grpc_code="OK"'));
  return Number(line?.split(' ')[1] ?? 0);
}

test('300 reads in one turn (more than one transaction holds) each get their own key, missing ones none, all at one revision', async () => {
  for (let i = 0; i < 200; i++) await kv.create(`${prefix}/k${i}`, Buffer.from(`v${i}`));
  observed.length = 0;
  const [ranges, txns] = [await handled('Range'), await handled('Txn')];
  const reads = await Promise.all(Array.from({ length: 300 }, (_, i) => kv.get(`${prefix}/k${i}`)));
  // Three transactions of at most 128 (etcd's --max-txn-ops), no Range call.
  expect([(await handled('Range')) - ranges, (await handled('Txn')) - txns]).toEqual([0, 3]);
  reads.forEach((read, i) => {
    if (i < 200) expect(read.kv?.value.toString()).toBe(`v${i}`);
    else expect(read.kv).toBeNull();
  });
  expect(new Set(reads.slice(0, 128).map((r) => r.revision)).size).toBe(1);
  // The storage metrics count each read as one get, as when it went alone.
  expect(observed.filter((o) => o.startsWith('get ')).length).toBe(300);
});

test('a read made after a write sees it, and a read at an older revision is its own', async () => {
  const key = `${prefix}/moving`;
  const first = await kv.create(key, Buffer.from('one'));
  if (!first.ok) throw new Error('create failed');
  const second = await kv.update(key, Buffer.from('two'), first.revision);
  if (!second.ok) throw new Error('update failed');
  const [latest, older] = await Promise.all([kv.get(key), kv.get(key, first.revision)]);
  expect(latest.kv?.value.toString()).toBe('two');
  expect(older.kv?.value.toString()).toBe('one');
});

test('a read whose caller gives up is refused at once; the others of its turn are answered', async () => {
  const abort = new AbortController();
  const given = kv.get(`${prefix}/k1`, undefined, { signal: abort.signal }).catch((err: unknown) => err);
  const kept = kv.get(`${prefix}/k2`);
  abort.abort();
  expect(isStorageError(await given, 'Timeout')).toBe(true);
  expect((await kept).kv?.value.toString()).toBe('v2');
});
