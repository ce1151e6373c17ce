import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';
import { initialEvents, openWatch } from '../harness/watch';
import { eventually } from '../harness/etcd-keys';
import { parseFeatureGates } from '../../src/server/feature-gates';

/** resourceVersion semantics for get, list and watch, chunking, selectors, compaction, streaming lists. */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
const NS = '/api/v1/namespaces/consistency';
const CM = `${NS}/configmaps`;

beforeAll(async () => {
  server = await startTestServer({ watchBookmarkIntervalMs: 300, etcdCompactionIntervalMs: 0 });
  api = new Api(server.url);
  await api.post('/api/v1/namespaces', { metadata: { name: 'consistency' } });
});

afterAll(async () => {
  await server.close();
});

const names = (list: { items: { metadata: { name: string } }[] }): string[] => list.items.map((i) => i.metadata.name);
const rvOf = (body: { metadata: { resourceVersion: string } }): number => Number(body.metadata.resourceVersion);

async function create(name: string, labels: Record<string, string> = {}): Promise<any> {
  const res = await api.post(CM, { metadata: { name, labels }, data: { v: '1' } });
  expect(res.status).toBe(201);
  return res.body;
}

describe('get', () => {
  test('unset and a known version find the object at once; 0 (any version) once the cache has it', async () => {
    const obj = await create('g1');
    for (const rv of [obj.metadata.resourceVersion, '']) {
      const res = await api.get(`${CM}/g1${rv === '' ? '' : `?resourceVersion=${rv}`}`);
      expect(res.status).toBe(200);
      expect(res.body.metadata.uid).toBe(obj.metadata.uid);
    }
    // As in kube-apiserver, resourceVersion=0 reads the watch cache without waiting, so it may lag a write.
    const any = await eventually('the cache to serve g1', async () => {
      const res = await api.get(`${CM}/g1?resourceVersion=0`);
      return res.status === 200 ? res : undefined;
    });
    expect(any.body.metadata.uid).toBe(obj.metadata.uid);
  });

  test('a version the server has not reached: 504 Timeout with Retry-After', async () => {
    const obj = await create('g2');
    const future = rvOf(obj) + 1_000_000;
    const res = await api.get(`${CM}/g2?resourceVersion=${future}`);
    expect(res.status).toBe(504);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body).toMatchObject({
      reason: 'Timeout',
      code: 504,
      details: { retryAfterSeconds: 1, causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }] },
    });
    expect(res.body.message).toMatch(new RegExp(`^Timeout: Too large resource version: ${future}, current: \\d+$`));
  });

  test('a watch from a version the server has not reached is 200 with one ERROR event, as the cacher answers it', async () => {
    const obj = await create('g3');
    const future = rvOf(obj) + 1_000_000;
    const res = await fetch(
      `${server.url}${CM}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=${future}`,
    );
    expect(res.status).toBe(200);
    const events = (await res.text())
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; object: Record<string, unknown> });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'ERROR', object: { kind: 'Status', code: 504, reason: 'Timeout' } });
  });

  test("a resourceVersion that is not a number is the cacher's InvalidError, a 500 without a reason", async () => {
    const res = await api.get(`${CM}/g1?resourceVersion=abc`);
    expect([res.status, res.body.reason]).toEqual([500, undefined]);
  });
});

describe('list', () => {
  test('unset is the latest state; the list resourceVersion is current', async () => {
    const obj = await create('l1');
    const res = await api.get(CM);
    expect(names(res.body)).toContain('l1');
    expect(rvOf(res.body)).toBeGreaterThanOrEqual(rvOf(obj));
  });

  test('resourceVersion=0 is served from the cache; NotOlderThan a known version sees it', async () => {
    const obj = await create('l2');
    const notOlder = await api.get(`${CM}?resourceVersion=${obj.metadata.resourceVersion}&resourceVersionMatch=NotOlderThan`);
    expect(names(notOlder.body)).toContain('l2');
    expect(rvOf(notOlder.body)).toBeGreaterThanOrEqual(rvOf(obj));
    const any = await api.get(`${CM}?resourceVersion=0`);
    expect(any.status).toBe(200);
  });

  test('Exact shows the collection as of that revision', async () => {
    const before = await create('e1');
    await create('e2');
    const exact = await api.get(`${CM}?resourceVersion=${before.metadata.resourceVersion}&resourceVersionMatch=Exact`);
    expect(exact.body.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(names(exact.body)).toContain('e1');
    expect(names(exact.body)).not.toContain('e2');
    // A limit with a resourceVersion and no match is Exact too.
    const legacy = await api.get(`${CM}?resourceVersion=${before.metadata.resourceVersion}&limit=500`);
    expect(names(legacy.body)).not.toContain('e2');
  });

  test('invalid combinations answer as kube-apiserver does', async () => {
    const cases: [string, number, string][] = [
      ['resourceVersionMatch=Exact', 422, 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
      [
        'resourceVersionMatch=Exact&resourceVersion=0',
        422,
        'resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
      ],
      ['resourceVersionMatch=NotOlderThan', 422, 'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
      ['resourceVersionMatch=Bogus&resourceVersion=1', 422, 'resourceVersionMatch: Unsupported value: "Bogus"'],
      // storage.ValidateListOptions: the token is decoded before the resourceVersion beside it is refused
      // "abc" is two bytes of base64, neither of them JSON: encoding/json's words for the first
      ['continue=abc&resourceVersion=5', 400, "invalid continue token: continue key is not valid: invalid character 'i' looking for beginning of value"],
      [
        `continue=${Buffer.from('{"v":"meta.k8s.io/v1","rv":"1","start":"x"}').toString('base64url')}`,
        400,
        'invalid continue token: continue key is not valid: json: cannot unmarshal string into Go struct field continueToken.rv of type int64',
      ],
      [
        `continue=${Buffer.from('{"v":"meta.k8s.io/v1","rv":1,"start":"x"}').toString('base64url')}&resourceVersion=5`,
        400,
        'specifying resource version is not allowed when using continue',
      ],
      ['continue=bad!', 400, 'invalid continue token: continue key is not valid: illegal base64 data at input byte 3'],
      ['labelSelector=a%20b%20c', 400, 'unable to parse requirement'],
      // ConfigMap has no field-label conversion func: runtime.DefaultMetaV1FieldSelectorConversion refuses
      ['fieldSelector=spec.nope%3Dx', 400, '"spec.nope" is not a known field selector: only "metadata.name", "metadata.namespace"'],
      ['sendInitialEvents=true', 422, 'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'],
    ];
    for (const [query, code, message] of cases) {
      const res = await api.get(`${CM}?${query}`);
      expect([query, res.status]).toEqual([query, code]);
      expect(res.body.message).toContain(message);
      if (code === 422) expect(res.body.message).toMatch(/^ListOptions.meta.k8s.io "" is invalid: /);
    }
  });
});

describe('chunked lists', () => {
  test('chunks share the first revision, hide later writes, and count what remains', async () => {
    for (let i = 0; i < 7; i++) await create(`chunk-${i}`, { chunked: 'yes' });
    const first = await api.get(`${CM}?limit=3`);
    const total = (await api.get(CM)).body.items.length;
    expect(first.body.items).toHaveLength(3);
    expect(first.body.metadata.continue).toEqual(expect.any(String));
    expect(first.body.metadata.remainingItemCount).toBe(total - 3);
    await create('zzz-after-first-chunk');
    const seen = [...names(first.body)];
    let page = first.body;
    while (page.metadata.continue) {
      const next = await api.get(`${CM}?limit=3&continue=${encodeURIComponent(page.metadata.continue)}`);
      expect(next.status).toBe(200);
      expect(next.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
      seen.push(...names(next.body));
      page = next.body;
    }
    expect(page.metadata.remainingItemCount).toBeUndefined();
    expect(seen).toHaveLength(total);
    expect(seen).not.toContain('zzz-after-first-chunk');
    expect([...seen].sort()).toEqual(seen);
  });

  test('ListFromCacheSnapshot (on by default): later chunks and exact lists come from the cache, matching etcd', async () => {
    for (let i = 0; i < 5; i++) await create(`snap-${i}`, { snap: 'yes' });
    const etcdLists = async (url: string): Promise<number> => {
      const text = await (await fetch(`${url}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith('etcd_request_duration_seconds_count{operation="list",type="configmaps"}'));
      return Number(line?.split(' ')[1] ?? 0);
    };
    const first = await api.get(`${CM}?labelSelector=snap&limit=2`);
    const exactRv = first.body.metadata.resourceVersion;
    await api.put(`${CM}/snap-0`, { metadata: { name: 'snap-0', labels: { snap: 'yes' } }, data: { changed: 'after' } });
    await api.delete(`${CM}/snap-4`);
    await create('snap-5', { snap: 'yes' });
    const pages = async (url: string): Promise<unknown[]> => {
      const out: unknown[] = [];
      let token = first.body.metadata.continue as string | undefined;
      while (token) {
        const res = await fetch(`${url}${CM}?labelSelector=snap&limit=2&continue=${encodeURIComponent(token)}`);
        const body = (await res.json()) as { metadata: { continue?: string } };
        out.push(body);
        token = body.metadata.continue;
      }
      out.push(await (await fetch(`${url}${CM}?labelSelector=snap&resourceVersion=${exactRv}&resourceVersionMatch=Exact`)).json());
      return out;
    };
    const before = await etcdLists(server.url);
    const fromCache = await pages(server.url);
    expect(await etcdLists(server.url)).toBe(before);
    const exact = fromCache[fromCache.length - 1] as { items: { metadata: { name: string }; data?: Record<string, string> }[] };
    expect(names(exact)).toEqual(['snap-0', 'snap-1', 'snap-2', 'snap-3', 'snap-4']);
    expect(exact.items[0].data).toEqual({ v: '1' });

    const plain = await startTestServer({
      etcdPrefix: server.prefix,
      etcdCompactionIntervalMs: 0,
      featureGates: parseFeatureGates('ListFromCacheSnapshot=false'),
    });
    try {
      const plainBefore = await etcdLists(plain.url);
      expect(await pages(plain.url)).toEqual(fromCache);
      expect(await etcdLists(plain.url)).toBeGreaterThan(plainBefore);
    } finally {
      await plain.close();
    }
  });

  test('with a selector, chunks fill up to the limit and remainingItemCount is absent', async () => {
    const res = await api.get(`${CM}?limit=2&labelSelector=chunked%3Dyes`);
    expect(names(res.body)).toEqual(['chunk-0', 'chunk-1']);
    expect(res.body.metadata.remainingItemCount).toBeUndefined();
    expect(res.body.metadata.continue).toBeDefined();
  });
});

describe('selectors', () => {
  test('label selectors of every form', async () => {
    await create('sel-a', { tier: 'web', env: 'prod' });
    await create('sel-b', { tier: 'db', env: 'prod' });
    await create('sel-c', { tier: 'web' });
    const q = async (selector: string): Promise<string[]> =>
      names((await api.get(`${CM}?labelSelector=${encodeURIComponent(selector)}`)).body).filter((n) => n.startsWith('sel-'));
    expect(await q('tier=web')).toEqual(['sel-a', 'sel-c']);
    expect(await q('tier==web,env=prod')).toEqual(['sel-a']);
    expect(await q('tier!=web')).toEqual(['sel-b']);
    expect(await q('tier in (db,cache)')).toEqual(['sel-b']);
    expect(await q('tier notin (db),env')).toEqual(['sel-a']);
    expect(await q('!env,tier')).toEqual(['sel-c']);
  });

  test('field selectors, including per-type fields', async () => {
    const res = await api.get(`${CM}?fieldSelector=metadata.name%3Dsel-b`);
    expect(names(res.body)).toEqual(['sel-b']);
    await api.post(`${NS}/pods`, { metadata: { name: 'on-node' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'x' }] } });
    await api.post(`${NS}/pods`, { metadata: { name: 'pending' }, spec: { containers: [{ name: 'c', image: 'x' }] } });
    const pods = await api.get(`${NS}/pods?fieldSelector=spec.nodeName%3Dn1,status.phase%3DPending`);
    expect(names(pods.body)).toEqual(['on-node']);
    const notOnNode = await api.get(`${NS}/pods?fieldSelector=spec.nodeName!%3Dn1`);
    expect(names(notOnNode.body)).toEqual(['pending']);
  });
});

describe('watch', () => {
  test('a selector watch sees objects leave and enter its selection', async () => {
    const start = await api.get(CM);
    const watch = await openWatch(`${server.url}${CM}?watch=1&labelSelector=watched%3Dyes&resourceVersion=${start.body.metadata.resourceVersion}`);
    try {
      const created = await create('sw', { watched: 'yes' });
      expect((await watch.next()).type).toBe('ADDED');
      const out = await api.put(`${CM}/sw`, { ...created, metadata: { ...created.metadata, labels: { watched: 'no' } } });
      const left = await watch.next();
      expect(left.type).toBe('DELETED');
      expect(left.object.metadata.labels).toEqual({ watched: 'yes' });
      expect(left.object.metadata.resourceVersion).toBe(out.body.metadata.resourceVersion);
      const back = await api.put(`${CM}/sw`, { ...out.body, metadata: { ...out.body.metadata, labels: { watched: 'yes' } } });
      const entered = await watch.next();
      expect(entered.type).toBe('ADDED');
      expect(entered.object.metadata.resourceVersion).toBe(back.body.metadata.resourceVersion);
    } finally {
      watch.close();
    }
  });

  test('bookmarks carry only the resourceVersion, when allowed', async () => {
    // From a given version: from "" or "0" SetListOptionsDefaults makes it a streaming list, whose first
    // bookmark is the annotated initial-events-end one. The version is a ConfigMap's own write, which the
    // cache of ConfigMaps holds once its event arrives: a list's version is etcd's, which that cache may
    // only reach at its next progress notification, and no bookmark is older than where a watch starts.
    const from = (await create('bookmark-from')).metadata.resourceVersion;
    const watch = await openWatch(`${server.url}${CM}?watch=1&allowWatchBookmarks=true&resourceVersion=${from}&fieldSelector=metadata.name%3Dnothing`);
    try {
      const event = await watch.next(5000);
      expect(event.type).toBe('BOOKMARK');
      expect(event.object).toEqual({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: expect.stringMatching(/^\d+$/) } });
    } finally {
      watch.close();
    }
  });

  test('streaming list: every object ADDED, then the initial-events-end bookmark, then changes', async () => {
    const watch = await openWatch(
      `${server.url}${CM}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&labelSelector=chunked%3Dyes`,
    );
    try {
      const { added, after: event } = await initialEvents(watch);
      expect(added).toEqual(['chunk-0', 'chunk-1', 'chunk-2', 'chunk-3', 'chunk-4', 'chunk-5', 'chunk-6']);
      expect(event.type).toBe('BOOKMARK');
      expect(event.object.metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
      const current = (await api.get(CM)).body.metadata.resourceVersion;
      expect(Number(event.object.metadata.resourceVersion)).toBeLessThanOrEqual(Number(current));
      await create('chunk-late', { chunked: 'yes' });
      let live = await watch.next();
      while (live.type === 'BOOKMARK') live = await watch.next();
      expect(live).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'chunk-late' } } });
    } finally {
      watch.close();
    }
  });

  test('watch parameter combinations that kube-apiserver refuses', async () => {
    const bad = [
      ['sendInitialEvents=true', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'],
      ['resourceVersionMatch=NotOlderThan&resourceVersion=1', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'],
      ['sendInitialEvents=true&resourceVersionMatch=Exact&resourceVersion=1', 'Unsupported value: "Exact"'],
    ];
    for (const [query, message] of bad) {
      const res = await api.get(`${CM}?watch=1&${query}`);
      expect(res.status).toBe(422);
      expect(res.body.message).toContain(message);
    }
  });
});

describe('compaction', () => {
  test('compacted revisions: 410 for exact lists, an inconsistent token for chunks, ERROR 410 for watches', async () => {
    const compacting = await startTestServer({ etcdCompactionIntervalMs: 300 });
    try {
      const c = new Api(compacting.url);
      const base = '/api/v1/namespaces/default/configmaps';
      // The root CA publisher's kube-root-ca.crt is listed first once it is there: wait for it, so the pages are known.
      await eventually('kube-root-ca.crt in default', async () => ((await c.get(`${base}/kube-root-ca.crt`)).status === 200 ? true : undefined));
      for (let i = 0; i < 5; i++) await c.post(base, { metadata: { name: `old-${i}` } });
      const first = await c.get(`${base}?limit=2`);
      const oldRv = first.body.metadata.resourceVersion;
      // Writes past the old revision, then two compaction rounds: the second compacts to the first's revision.
      for (let i = 0; i < 3; i++) await c.post(base, { metadata: { name: `zz-new-${i}` } });
      await new Promise((r) => setTimeout(r, 1200));
      const exact = await c.get(`${base}?resourceVersion=${oldRv}&resourceVersionMatch=Exact`);
      expect(exact.status).toBe(410);
      expect(exact.body).toMatchObject({ reason: 'Expired', code: 410, message: 'The resourceVersion for the provided list is too old.' });
      const next = await c.get(`${base}?limit=2&continue=${encodeURIComponent(first.body.metadata.continue)}`);
      expect(next.status).toBe(410);
      expect(next.body.message).toMatch(/^The provided continue parameter is too old/);
      const resumed = await c.get(`${base}?limit=100&continue=${encodeURIComponent(next.body.metadata.continue)}`);
      expect(resumed.status).toBe(200);
      expect(names(resumed.body)).toEqual(['old-1', 'old-2', 'old-3', 'old-4', 'zz-new-0', 'zz-new-1', 'zz-new-2']);
      const watch = await openWatch(`${compacting.url}${base}?watch=1&resourceVersion=${oldRv}`);
      try {
        expect(watch.status).toBe(200);
        const event = await watch.next();
        expect(event.type).toBe('ERROR');
        expect(event.object).toMatchObject({ kind: 'Status', reason: 'Expired', code: 410 });
        expect(event.object.message).toMatch(/^too old resource version: \d+ \(\d+\)$/);
      } finally {
        watch.close();
      }
    } finally {
      await compacting.close();
    }
  });
});

describe('the query as Go parses it', () => {
  test("a pair holding ';' or a broken escape is left out, as URL.Query() drops it; '+' is a space", async () => {
    await create('query-go', { tier: 'ab' });
    for (const query of ['labelSelector=tier;x', 'fieldSelector=%zz', 'limit=%zz1']) {
      const res = await api.get(`${CM}?${query}`);
      expect([query, res.status]).toEqual([query, 200]);
      expect(names(res.body)).toContain('query-go');
    }
    const spaced = await api.get(`${CM}?labelSelector=tier+in+(x,y)`);
    expect(spaced.status).toBe(200);
    expect(names(spaced.body)).not.toContain('query-go');
  });
});
