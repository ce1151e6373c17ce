import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

/**
 * resourceVersions kube reads as uint64 (APIObjectVersioner.ParseResourceVersion) beyond what a
 * JavaScript number holds exactly: revisions etcd has not reached, never rounded to one it has.
 */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
const NS = '/api/v1/namespaces/rv-range';
const CM = `${NS}/configmaps`;
const UINT64_MAX = '18446744073709551615';
/** 2^53 + 1: as a double it would be read as 2^53. */
const PAST_DOUBLES = '9007199254740993';

beforeAll(async () => {
  server = await startTestServer({ watchBookmarkIntervalMs: 200, etcdCompactionIntervalMs: 0 });
  api = new Api(server.url);
  await api.post('/api/v1/namespaces', { metadata: { name: 'rv-range' } });
  expect((await api.post(CM, { metadata: { name: 'a' }, data: { v: '1' } })).status).toBe(201);
});

afterAll(async () => {
  await server.close();
});

const tooLarge = (digits: string) => ({
  kind: 'Status',
  status: 'Failure',
  reason: 'Timeout',
  code: 504,
  message: expect.stringMatching(new RegExp(`^Timeout: Too large resource version: ${digits}, current: \\d+$`)),
  details: { retryAfterSeconds: 1, causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }] },
});

async function watchEvents(query: string): Promise<{ status: number; events: { type: string; object: Record<string, unknown> }[] }> {
  const res = await fetch(`${server.url}${CM}?watch=1&${query}`);
  const events = (await res.text())
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; object: Record<string, unknown> });
  return { status: res.status, events };
}

test('reads up to 2^64-1 wait for the revision as the cacher does, then 504 with the digits asked for', async () => {
  const [get, list, exact, legacyExact, zeros, streamed] = await Promise.all([
    api.get(`${CM}/a?resourceVersion=${UINT64_MAX}`),
    api.get(`${CM}?resourceVersion=${PAST_DOUBLES}`),
    api.get(`${CM}?resourceVersion=${UINT64_MAX}&resourceVersionMatch=Exact`),
    api.get(`${CM}?resourceVersion=${PAST_DOUBLES}&limit=5`),
    api.get(`${CM}?resourceVersion=00${UINT64_MAX}&resourceVersionMatch=NotOlderThan`),
    watchEvents(`sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=${UINT64_MAX}`),
  ]);
  for (const [res, digits] of [
    [get, UINT64_MAX],
    [list, PAST_DOUBLES],
    [zeros, UINT64_MAX],
  ] as const) {
    expect(res.status).toBe(504);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body).toEqual({ apiVersion: 'v1', metadata: {}, ...tooLarge(digits) });
  }
  // Exact lists wait in the cache where etcd's progress notifications allow consistent reads from it
  // (Cacher.shouldDelegateExactRV); else etcd3 store's GetList answers at once, with no retry delay.
  for (const [res, digits] of [
    [exact, UINT64_MAX],
    [legacyExact, PAST_DOUBLES],
  ] as const) {
    expect(res.status).toBe(504);
    expect(res.body).toMatchObject({ ...tooLarge(digits), details: { causes: tooLarge(digits).details.causes } });
  }
  expect(streamed.status).toBe(200);
  expect(streamed.events).toEqual([{ type: 'ERROR', object: { apiVersion: 'v1', metadata: {}, ...tooLarge(UINT64_MAX) } }]);
});

test('a watch from a revision past 2^53 sees no events and no bookmarks before it', async () => {
  const watching = watchEvents(`resourceVersion=${UINT64_MAX}&allowWatchBookmarks=true&timeoutSeconds=2`);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect((await api.post(CM, { metadata: { name: 'after-watch' } })).status).toBe(201);
  const { status, events } = await watching;
  expect(status).toBe(200);
  expect(events).toEqual([]);
});

test('an update naming a resourceVersion past 2^53 is a conflict', async () => {
  const res = await api.put(`${CM}/a`, { metadata: { name: 'a', resourceVersion: UINT64_MAX }, data: { v: '2' } });
  expect(res.status).toBe(409);
  expect(res.body).toMatchObject({
    reason: 'Conflict',
    message: 'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again',
  });
});

describe('a resourceVersion that is not a uint64 (APIObjectVersioner.ParseResourceVersion)', () => {
  const parseError = (rv: string, why: string) =>
    `resourceVersion: Invalid value: ${JSON.stringify(rv)}: strconv.ParseUint: parsing ${JSON.stringify(rv)}: ${why}`;
  /** ErrorToAPIStatus of an error that is not a Status: 500, no reason. */
  const notAStatus = (message: string) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 });
  const cases = [
    ['abc', 'invalid syntax'],
    ['18446744073709551616', 'value out of range'],
    // ParseUint reads digit by digit: past 2^64-1 before the letter
    ['99999999999999999999x', 'value out of range'],
  ] as const;

  test("a list's is storage.ValidateListOptions' 400; a get's and a watch's, the cacher's InvalidError, a 500", async () => {
    for (const [rv, why] of cases) {
      const [list, get, watch] = await Promise.all([
        api.get(`${CM}?resourceVersion=${rv}`),
        api.get(`${CM}/a?resourceVersion=${rv}`),
        api.get(`${CM}?watch=1&resourceVersion=${rv}`),
      ]);
      expect([rv, list.status, list.body]).toEqual([
        rv,
        400,
        expect.objectContaining({ reason: 'BadRequest', message: `invalid resource version: ${parseError(rv, why)}` }),
      ]);
      expect([rv, get.status, get.body]).toEqual([rv, 500, notAStatus(parseError(rv, why))]);
      expect([rv, watch.status, watch.body]).toEqual([rv, 500, notAStatus(parseError(rv, why))]);
    }
  });

  test("without the watch cache a get's is etcd3 store's validateMinimumResourceVersion 400, for an absent object too", async () => {
    const direct = await startTestServer({ watchCache: false });
    try {
      const client = new Api(direct.url);
      for (const path of ['/api/v1/namespaces/default/configmaps/absent', '/api/v1/namespaces/default/configmaps']) {
        const res = await client.get(`${path}?resourceVersion=abc`);
        expect([path, res.status, res.body.message]).toEqual([path, 400, `invalid resource version: ${parseError('abc', 'invalid syntax')}`]);
      }
      const watch = await client.get('/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=abc');
      expect([watch.status, watch.body]).toEqual([500, notAStatus(parseError('abc', 'invalid syntax'))]);
    } finally {
      await direct.close();
    }
  });

  test("an update's is compared as a number (Store.Update, ObjectResourceVersion): what is not one is strconv's 500", async () => {
    const current = (await api.get(`${CM}/a`)).body;
    const padded = await api.put(`${CM}/a`, {
      ...current,
      metadata: { ...current.metadata, resourceVersion: `00${current.metadata.resourceVersion}` },
      data: { v: 'padded' },
    });
    expect([padded.status, padded.body.data]).toEqual([200, { v: 'padded' }]);
    for (const [rv, why] of cases) {
      const res = await api.put(`${CM}/a`, { ...current, metadata: { ...current.metadata, resourceVersion: rv } });
      expect([rv, res.status, res.body]).toEqual([rv, 500, notAStatus(`strconv.ParseUint: parsing ${JSON.stringify(rv)}: ${why}`)]);
    }
    const patched = await api.patch(`${CM}/a`, { metadata: { resourceVersion: 'abc' } }, 'application/merge-patch+json');
    expect([patched.status, patched.body]).toEqual([500, notAStatus('strconv.ParseUint: parsing "abc": invalid syntax')]);
  });
});
