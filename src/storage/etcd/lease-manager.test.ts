import type { KV } from './kv';
import { LeaseManager } from './lease-manager';

function fakeKv(): { kv: KV; grants: number[] } {
  const grants: number[] = [];
  const kv = { grantLease: async (ttl: number) => String(grants.push(ttl)) } as unknown as KV;
  return { kv, grants };
}

test('a lease is granted with the reuse window added and shared until it would end before the asked TTL', async () => {
  let now = 0;
  const { kv, grants } = fakeKv();
  const leases = new LeaseManager(kv, () => now);
  // 1h: 5% would be 3 minutes, capped at one.
  expect(await leases.lease(3600)).toBe('1');
  expect(grants).toEqual([3660]);
  now = 59_000;
  expect(await leases.lease(3600)).toBe('1');
  now = 61_000;
  expect(await leases.lease(3600)).toBe('2');
  expect(grants).toEqual([3660, 3660]);
});

test('a short TTL has no reuse window: every write gets its own lease', async () => {
  const { kv, grants } = fakeKv();
  const leases = new LeaseManager(kv, () => 0);
  await leases.lease(5);
  await leases.lease(5);
  expect(grants).toEqual([5, 5]);
});

test('one lease carries at most 1000 objects; concurrent writes share one grant', async () => {
  const { kv, grants } = fakeKv();
  const leases = new LeaseManager(kv, () => 0);
  const ids = await Promise.all(Array.from({ length: 1001 }, () => leases.lease(3600)));
  expect(new Set(ids.slice(0, 1000))).toEqual(new Set(['1']));
  expect(ids[1000]).toBe('2');
  expect(grants).toHaveLength(2);
});
