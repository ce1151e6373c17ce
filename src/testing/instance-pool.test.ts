import { InstancePool, type PoolKey } from './instance-pool';

class Fake {
  stopped = false;
  constructor(
    readonly key: PoolKey,
    readonly n: number,
  ) {}
  async stop(): Promise<void> {
    this.stopped = true;
  }
}

function pool(): { pool: InstancePool<Fake>; booted: Fake[] } {
  const booted: Fake[] = [];
  return { pool: new InstancePool<Fake>(async (key) => booted[booted.push(new Fake(key, booted.length)) - 1]), booted };
}

const plain: PoolKey = { etcdEndpoint: 'http://e', featureGates: '', simulatedNodes: 0 };
const gated: PoolKey = { etcdEndpoint: 'http://e', featureGates: 'WatchList=false', simulatedNodes: 0 };
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

test('the first caller of a kind gets a new server; a spare of that kind is started after it is served, and the next caller gets it', async () => {
  const { pool: p, booted } = pool();
  const first = await p.serve(plain, async (i) => i);
  expect(first.n).toBe(0);
  await tick();
  expect(booted).toHaveLength(2);
  const second = await p.serve(plain, async (i) => i);
  expect(second).toBe(booted[1]);
  await tick();
  expect(booted).toHaveLength(3);
});

test('no spare is started while a caller is being served', async () => {
  const { pool: p, booted } = pool();
  let release!: () => void;
  const slow = p.serve(plain, () => new Promise<void>((r) => (release = r)));
  await tick();
  await p.serve(gated, async () => undefined);
  await tick();
  expect(booted).toHaveLength(2);
  release();
  await slow;
  await tick();
  expect(booted.map((f) => f.key)).toEqual([plain, gated, plain, gated]);
});

test('a kind keeps as many spares as it had callers at once, up to four', async () => {
  const { pool: p, booted } = pool();
  await Promise.all([1, 2, 3].map(() => p.serve(plain, async () => undefined)));
  await tick();
  expect(booted).toHaveLength(6);
  // The next three callers at once get the three spares.
  const served = await Promise.all([1, 2, 3].map(() => p.serve(plain, async (i) => i)));
  expect(served).toEqual(booted.slice(3, 6));
  await tick();
  expect(booted).toHaveLength(9);
  // Six at once: three spares and three new; then four spares, not six.
  await Promise.all(Array.from({ length: 6 }, () => p.serve(plain, async () => undefined)));
  await tick();
  expect(booted).toHaveLength(9 + 3 + 4);
});

test('spares are kept for the two kinds wanted last; the older kind is stopped; close() stops the rest', async () => {
  const { pool: p, booted } = pool();
  const third: PoolKey = { etcdEndpoint: 'http://e', featureGates: '', simulatedNodes: 3 };
  for (const key of [plain, gated, third]) {
    await p.serve(key, async () => undefined);
    await tick();
  }
  const spares = (): Fake[] => booted.filter((_, i) => i % 2 === 1);
  expect(spares().map((f) => [f.key, f.stopped])).toEqual([
    [plain, true],
    [gated, false],
    [third, false],
  ]);
  await p.close();
  expect(spares().every((f) => f.stopped)).toBe(true);
  await p.serve(plain, async () => undefined);
  await tick();
  expect(booted.filter((f) => !f.stopped)).toHaveLength(4);
});
