import { StatusError } from '../../src/api/errors';
import { interpretStorageError } from '../../src/registry/storage-errors';
import { WatchCache } from '../../src/storage/cache/watch-cache';
import { Etcd3Kv } from '../../src/storage/etcd/etcd3-kv';
import { EtcdStorage } from '../../src/storage/etcd/etcd-storage';
import { everything } from '../../src/storage/interfaces';
import { testEtcdEndpoint, uniquePrefix } from '../harness/shared-etcd';

/**
 * A watch cache that is (re)initializing holds requests for a bounded time only, then answers
 * 429 "storage is (re)initializing" with a Retry-After, as kube-apiserver's cacher does.
 */
describe('a (re)initializing watch cache', () => {
  const prefix = uniquePrefix('ready');
  const root = `${prefix}/configmaps/`;
  let kv: Etcd3Kv;
  let cache: WatchCache;

  beforeAll(() => {
    kv = new Etcd3Kv({ endpoints: [testEtcdEndpoint()] });
    cache = new WatchCache(new EtcdStorage(kv, `${prefix}/`), root, {
      historyMs: 60_000,
      maxEvents: 1000,
      bookmarkIntervalMs: 60_000,
      freshnessTimeoutMs: 3000,
      consistentReads: false,
      watcherBuffer: 100,
      snapshots: true,
      readyWaitMs: 400,
      log: () => undefined,
    });
  });
  afterAll(async () => {
    cache.stop();
    await kv.close();
  });

  function asStatus(err: unknown): StatusError {
    const mapped = interpretStorageError(err, { group: '', resource: 'configmaps' }, '', 'list');
    expect(mapped).toBeInstanceOf(StatusError);
    return mapped as StatusError;
  }

  it('answers reads with resourceVersion=0, lookups and new watches with 429 after the bounded wait', async () => {
    const calls: [string, () => Promise<unknown>][] = [
      ['list rv=0', () => cache.list(root, { resourceVersion: '0', match: '', predicate: everything })],
      ['get rv=0', () => cache.get(`${root}default/x`, { resourceVersion: '0', match: '' })],
      ['watch', () => cache.watch(root, { resourceVersion: '0', predicate: everything })],
    ];
    for (const [, call] of calls) {
      const start = Date.now();
      const err = await call().then(
        () => null,
        (e: unknown) => e,
      );
      const waited = Date.now() - start;
      expect(waited).toBeGreaterThanOrEqual(350);
      expect(waited).toBeLessThan(2000);
      const status = asStatus(err);
      expect(status.status).toMatchObject({
        kind: 'Status',
        code: 429,
        reason: 'TooManyRequests',
        message: 'storage is (re)initializing',
        details: { retryAfterSeconds: 1 },
      });
      expect(status.headers['Retry-After']).toBe('1');
    }
  });

  it("ends the wait at the caller's deadline instead, with 504", async () => {
    const start = Date.now();
    const err = await cache.list(root, { resourceVersion: '0', match: '', predicate: everything, signal: AbortSignal.timeout(100) }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(Date.now() - start).toBeLessThan(350);
    expect(asStatus(err).status).toMatchObject({ code: 504, reason: 'Timeout' });
  });

  it('serves once it is ready', async () => {
    await cache.start();
    await expect(cache.list(root, { resourceVersion: '0', match: '', predicate: everything })).resolves.toMatchObject({ items: [] });
  });
});
