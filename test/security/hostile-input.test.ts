import { readFileSync } from 'node:fs';
import { FUZZ_MEDIA, Fuzzer, fuzzPaths, isKubesOwn500, sendRequest, validBodies, type FuzzAnswer } from '../harness/fuzz';
import { Api } from '../harness/http';
import { startServerProcess, type ServerProcess } from '../harness/process';
import { rawRequest, type RawReply } from '../harness/raw-http';
import { decodeCbor, encodeCbor } from '../../src/codec/cbor';
import { encodeYaml } from '../../src/codec/yaml';
import { load as loadYaml } from 'js-yaml';
import { createEstablished, simpleCrd } from '../harness/crds';

/**
 * Issue 25: no request stalls the server. Against the built server as a process over real etcd:
 * first each repro of the issue, answered within its bound with kube-apiserver's answer; then a
 * seeded stream of hostile paths, queries, bodies, patches and headers (KAPI_HOSTILE_REQUESTS of
 * them, 1500 by default so that the file stays well under 90 s on a loaded 2-core machine; the
 * issue's campaign sent 10,000) while a probe times /readyz and reads the process's RSS. No answer
 * is a 5xx, every error is a Status, /readyz stays quick, RSS stays bounded, and every valid write
 * made along the way is still there.
 */

const SEED = Number(process.env.KAPI_HOSTILE_SEED ?? 20261127);
const REQUESTS = Number(process.env.KAPI_HOSTILE_REQUESTS ?? 1500);
/**
 * The issue's target is 100 ms. The suite shares two cores with other test runs, and the probe's
 * latency includes the time the server's process waits for a core: the p99 measured 77-82 ms under
 * a load of 3-6 (89-92 ms before the answer's JSON, the schema decoding and the update's validation
 * were sliced), 170-345 ms under a load of 13-16 before that. The bound keeps room for a loaded
 * machine, and still catches a request that holds the loop for long.
 */
const READYZ_P99_MS = Number(process.env.KAPI_HOSTILE_READYZ_P99_MS ?? 400);
const RSS_GROWTH_BYTES = 1024 ** 3;
/** 80 s for the default 1,500; the issue's campaign of 10,000 in proportion. */
const STREAM_TIMEOUT_MS = 80_000 * Math.max(1, REQUESTS / 1500);
/** The worst /readyz latency allowed while the 20,000-container patch runs (see its test). */
const SMP_READYZ_WORST_MS = Number(process.env.KAPI_HOSTILE_SMP_READYZ_MS ?? 1000);

const NS = '/api/v1/namespaces/hostile';
const DEPLOYMENTS = '/apis/apps/v1/namespaces/hostile/deployments';

let server: ServerProcess & { port: number };
let api: Api;

beforeAll(async () => {
  server = await startServerProcess();
  api = new Api(server.url);
  expect((await api.post('/api/v1/namespaces', { metadata: { name: 'hostile' } })).status).toBe(201);
  expect((await api.post(`${NS}/configmaps`, { metadata: { name: 'target', labels: { a: 'b' } }, data: { k: 'v' } })).status).toBe(201);
  const deployment = {
    metadata: { name: 'd' },
    spec: { selector: { matchLabels: { app: 'd' } }, template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c0', image: 'x' }] } } },
  };
  expect((await api.post(DEPLOYMENTS, deployment)).status).toBe(201);
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

afterEach(() => {
  expect(server.child.exitCode).toBeNull();
});

function rssBytes(of: ServerProcess = server): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${of.child.pid}/status`, 'utf8'));
  return Number(line?.[1] ?? 0) * 1024;
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const started = Date.now();
  const result = await fn();
  return [result, Date.now() - started];
}

function statusOf(body: string): Record<string, unknown> | null {
  try {
    const parsed = JSON.parse(body);
    return parsed?.kind === 'Status' ? parsed : null;
  } catch {
    return null;
  }
}

/** A Deployment of 20,000 containers (a body of 2-4 MB). */
function largeDeployment(name: string): object {
  const containers = Array.from({ length: 20_000 }, (_, i) => ({ name: `c${i}`, image: 'x' }));
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers } } },
  };
}

/** A 1 KB annotation map, then 24 copies of the map into itself: each doubles it. */
function copyBomb(): object[] {
  return [
    { op: 'add', path: '/metadata/annotations', value: { a: 'x'.repeat(1024) } },
    ...Array.from({ length: 24 }, (_, i) => ({ op: 'copy', from: '/metadata/annotations', path: `/metadata/annotations/x${i}` })),
  ];
}

const raw = (lines: string[], body = ''): string => `${lines.join('\r\n')}\r\n\r\n${body}`;

describe('the repros of issue 25', () => {
  test('an Accept header of 90,000 clauses (under the 1 MiB header limit) is a 406 while /readyz still answers', async () => {
    // goautoneg sorts the clauses with sort.Sort; an insertion sort of them held the loop 84 s.
    const accept = Array.from({ length: 90_000 }, (_, i) => `a/b;q=0.${i % 10}`).join(', ');
    const readyz = probe();
    const [res, ms] = await timed(() =>
      fetch(`${server.url}${NS}/configmaps`, { headers: { accept } }).then(async (r) => ({ status: r.status, text: await r.text() })),
    );
    const { latencies, failures } = await readyz.stop();
    const worst = Math.max(...latencies);
    process.stdout.write(`90,000 Accept clauses: ${ms} ms; /readyz ${latencies.length} probes, worst ${worst.toFixed(0)} ms\n`);
    expect(failures).toEqual([]);
    expect(res.status).toBe(406);
    expect(statusOf(res.text)).toMatchObject({ reason: 'NotAcceptable' });
    expect(worst).toBeLessThan(SMP_READYZ_WORST_MS);
  }, 30_000);

  test('a label selector of 400,000 terms (800 KB, under the 1 MiB header limit) is parsed in slices while /readyz still answers', async () => {
    const selector = Array.from({ length: 400_000 }, () => 'a').join(',');
    const readyz = probe();
    const [res, ms] = await timed(() =>
      fetch(`${server.url}${NS}/configmaps?labelSelector=${selector}`).then(async (r) => ({ status: r.status, text: await r.text() })),
    );
    const { latencies, failures } = await readyz.stop();
    const worst = Math.max(...latencies);
    process.stdout.write(`400,000 label terms: ${ms} ms; /readyz ${latencies.length} probes, worst ${worst.toFixed(0)} ms\n`);
    expect(failures).toEqual([]);
    expect(res.status).toBe(200);
    // Every term requires the label a: the ConfigMap labelled a=b.
    expect(JSON.parse(res.text).items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['target']);
    // Parsed in one piece, the selector held the loop 241 ms on a quiet machine (/readyz's worst wait), longer on a
    // busy one; in slices of 1,024 terms /readyz waited 40-42 ms.
    expect(worst).toBeLessThan(200);
  }, 30_000);

  test('a custom object nested 990 levels deep is answered as YAML while /readyz still answers, and reads back the same', async () => {
    await createEstablished(api, simpleCrd('hostile.example.com', 'deeps', 'Deep'));
    let spec: unknown = { v: 1 };
    for (let i = 0; i < 990; i++) spec = i % 2 ? { a: spec, b: 2 } : [spec, 2];
    const path = '/apis/hostile.example.com/v1/namespaces/hostile/deeps';
    expect((await api.post(path, { apiVersion: 'hostile.example.com/v1', kind: 'Deep', metadata: { name: 'd' }, spec })).status).toBe(201);
    const readyz = probe();
    const [res, ms] = await timed(() =>
      fetch(`${server.url}${path}/d`, { headers: { accept: 'application/yaml' } }).then(async (r) => ({ status: r.status, text: await r.text() })),
    );
    const { latencies, failures } = await readyz.stop();
    const worst = Math.max(...latencies);
    process.stdout.write(`990 levels as YAML: ${ms} ms; /readyz ${latencies.length} probes, worst ${worst.toFixed(0)} ms\n`);
    expect(failures).toEqual([]);
    expect(res.status).toBe(200);
    expect((loadYaml(res.text, { maxDepth: 2000 }) as { spec: unknown }).spec).toEqual(spec);
    // Block style for the first 64 levels, flow style past them (docs/divergences.md): 38-67 ms, /readyz's worst
    // wait 9-12 ms. In block style at every depth it took 852 ms, and /readyz waited 775 ms.
    expect(worst).toBeLessThan(READYZ_P99_MS);
  }, 30_000);

  test('a JSON patch that copies a map into itself 24 times is 422 within 1 s, as json-patch past kube JSONPatchMaxCopyBytes', async () => {
    const rssBefore = rssBytes();
    const [res, ms] = await timed(() => api.patch(`${NS}/configmaps/target?dryRun=All`, copyBomb(), 'application/json-patch+json'));
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'Invalid', message: 'the server rejected our request due to an error in our request', code: 422 });
    expect(ms).toBeLessThan(1000);
    expect(rssBytes() - rssBefore).toBeLessThan(256 * 1024 ** 2);
  });

  test('20,000 containers under a Deployment template by strategic merge: merged in order, quickly, while /readyz still answers', async () => {
    const containers = Array.from({ length: 20_000 }, (_, i) => ({ name: `c${i + 1}`, image: 'x' }));
    const patch = JSON.stringify({ spec: { template: { spec: { containers } } } });
    const readyz = probe();
    // The 6 MB answer is parsed once the probe has stopped: parsing it here would delay the probe, not the server.
    const [res, ms] = await timed(() =>
      fetch(`${server.url}${DEPLOYMENTS}/d?dryRun=All`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/strategic-merge-patch+json' },
        body: patch,
      }).then(async (r) => ({ status: r.status, text: await r.text() })),
    );
    const { latencies, failures } = await readyz.stop();
    const worst = Math.max(...latencies);
    process.stdout.write(`20,000-container patch: ${ms} ms; /readyz ${latencies.length} probes, worst ${worst.toFixed(0)} ms\n`);
    expect(failures).toEqual([]);
    expect(res.status).toBe(200);
    const names = (JSON.parse(res.text).spec.template.spec.containers as { name: string }[]).map((c) => c.name);
    // mergeSortedSlice: the patch's items in its order, then c0, which the live list alone has
    expect(names).toHaveLength(20_001);
    expect(names.slice(0, 2)).toEqual(['c1', 'c2']);
    expect(names[20_000]).toBe('c0');
    // It took 10.4 s on an idle machine; about 2.5 s on a warm server under a load of 12, and the bound is generous for that.
    expect(ms).toBeLessThan(8000);
    // The request's stages run in slices (the longest left, parsing the body and the final storage write, take 50-90 ms on a quiet machine);
    // /readyz waited 125-186 ms under a load of 3-6 (278-321 ms before decoding, validation and the answer's JSON were sliced).
    expect(worst).toBeLessThan(SMP_READYZ_WORST_MS);
  }, 30_000);

  test('a 20,000-container Deployment sent as YAML (3.9 MB) is created while /readyz still answers: the body is parsed off the event loop', async () => {
    const body = encodeYaml(largeDeployment('yaml-body'));
    const readyz = probe();
    const [res, ms] = await timed(() =>
      fetch(`${server.url}${DEPLOYMENTS}?dryRun=All`, { method: 'POST', headers: { 'content-type': 'application/yaml' }, body }).then(async (r) => ({
        status: r.status,
        text: await r.text(),
      })),
    );
    const { latencies, failures } = await readyz.stop();
    const worst = Math.max(...latencies);
    process.stdout.write(`20,000-container YAML create: ${ms} ms; /readyz ${latencies.length} probes, worst ${worst.toFixed(0)} ms\n`);
    expect(failures).toEqual([]);
    expect(res.status).toBe(201);
    const containers = JSON.parse(res.text).spec.template.spec.containers as { name: string }[];
    expect(containers).toHaveLength(20_000);
    expect(containers[19_999].name).toBe('c19999');
    // js-yaml parsed the body in one piece of 350-1,100 ms on the shared machine; the worker hands back the value in 12-40 ms.
    expect(worst).toBeLessThan(SMP_READYZ_WORST_MS);
  }, 30_000);

  test('CBOR (behind its gate): a 20,000-container Deployment sent as CBOR and answered as CBOR (5 MB) while /readyz still answers', async () => {
    const gated = await startServerProcess(['--feature-gates=CBORServingAndStorage=true']);
    try {
      const body = encodeCbor(largeDeployment('cbor'));
      // A fresh process builds a kind's schemas on its first request of the kind: that is not what this case measures.
      const warm = await fetch(`${gated.url}/apis/apps/v1/namespaces/default/deployments?dryRun=All`, {
        method: 'POST',
        headers: { 'content-type': 'application/cbor', accept: 'application/cbor' },
        body: encodeCbor(largeDeployment('warm')),
      });
      expect(warm.status).toBe(201);
      const readyz = probe(gated);
      // dryRun: stored, the object with its managed fields would pass etcd's request size limit (a 413).
      const [res, ms] = await timed(() =>
        fetch(`${gated.url}/apis/apps/v1/namespaces/default/deployments?dryRun=All`, {
          method: 'POST',
          headers: { 'content-type': 'application/cbor', accept: 'application/cbor' },
          body,
        }).then(async (r) => ({ status: r.status, contentType: r.headers.get('content-type'), body: Buffer.from(await r.arrayBuffer()) })),
      );
      const { latencies, failures } = await readyz.stop();
      const worst = Math.max(...latencies);
      process.stdout.write(`20,000-container CBOR create: ${ms} ms; /readyz ${latencies.length} probes, worst ${worst.toFixed(0)} ms\n`);
      expect(failures).toEqual([]);
      expect(res.status).toBe(201);
      expect(res.contentType).toBe('application/cbor');
      const answer = decodeCbor(res.body) as {
        metadata: { name: string; managedFields: unknown[] };
        spec: { template: { spec: { containers: { name: string }[] } } };
      };
      expect(answer.metadata.name).toBe('cbor');
      expect(answer.metadata.managedFields).toHaveLength(1);
      const names = answer.spec.template.spec.containers.map((c) => c.name);
      expect(names).toHaveLength(20_000);
      expect([names[0], names[19_999]]).toEqual(['c0', 'c19999']);
      // cbor-x parsed the body in one piece of 180-500 ms on the shared machine, and the 5 MB answer was one piece of 90-190 ms of CPU:
      // the body is now parsed off the event loop, the answer written in slices of a few ms.
      expect(worst).toBeLessThan(SMP_READYZ_WORST_MS);
    } finally {
      await gated.stop();
    }
  }, 60_000);

  test('a null label value decodes as "" (Go leaves a string its zero value), on a Pod and in matchLabels', async () => {
    const pod = { metadata: { name: 'p', labels: { a: null } }, spec: { containers: [{ name: 'c', image: 'x' }] } };
    const created = await api.post(`${NS}/pods?dryRun=All`, pod);
    expect(created.status).toBe(201);
    expect(created.body.metadata.labels).toEqual({ a: '' });
    const deployment = {
      metadata: { name: 'nulls' },
      spec: { selector: { matchLabels: { a: null } }, template: { metadata: { labels: { a: '' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
    };
    const d = await api.post(`${DEPLOYMENTS}?dryRun=All`, deployment);
    expect(d.status).toBe(201);
    expect(d.body.spec.selector.matchLabels).toEqual({ a: '' });
    // and the template must then match the selector, as for any "" value
    deployment.spec.template.metadata.labels = { a: 'x' };
    const mismatch = await api.post(`${DEPLOYMENTS}?dryRun=All`, deployment);
    expect(mismatch.status).toBe(422);
  });

  test('Expect other than 100-continue is 417, a missing Host 400, both with a Status; Host is read first, as Go does', async () => {
    const expectation = await rawRequest(server.port, raw(['GET /version HTTP/1.1', 'Host: 127.0.0.1', 'Expect: junk']));
    expect(expectation.code).toBe(417);
    expect(statusOf(expectation.body)).toMatchObject({ code: 417 });
    const hostless = await rawRequest(server.port, raw([`GET ${NS}/configmaps HTTP/1.1`]));
    expect(hostless.code).toBe(400);
    expect(statusOf(hostless.body)).toMatchObject({ code: 400, reason: 'BadRequest', message: 'missing required Host header' });
    expect(hostless.closed).toBe(true);
    const both = await rawRequest(server.port, raw(['GET /version HTTP/1.1', 'Expect: junk']));
    expect(both.code).toBe(400);
    // HTTP/1.0 needs no Host
    expect((await rawRequest(server.port, raw(['GET /version HTTP/1.0']))).code).toBe(200);
  });

  test('CONNECT is served like any method: 405 on a resource, as go-restful answers a method it has no route for', async () => {
    const res = await rawRequest(server.port, raw([`CONNECT ${NS}/configmaps HTTP/1.1`, 'Host: 127.0.0.1']));
    expect(res.code).toBe(405);
    expect(statusOf(res.body)).toMatchObject({ code: 405, reason: 'MethodNotAllowed' });
  });

  test('HEAD on a resource, and PUT or PATCH on a collection, are 405: kube registers no such routes', async () => {
    expect((await fetch(`${server.url}${NS}/configmaps/target`, { method: 'HEAD' })).status).toBe(405);
    for (const method of ['PUT', 'PATCH']) {
      const res = await fetch(`${server.url}${NS}/configmaps`, { method, headers: { 'content-type': 'application/merge-patch+json' }, body: '{}' });
      expect(res.status).toBe(405);
      expect(statusOf(await res.text())).toMatchObject({ code: 405, reason: 'MethodNotAllowed' });
    }
    expect((await api.get(`${NS}/configmaps/target`)).status).toBe(200);
  });

  test("a PATCH's type is its Content-Type up to ';', as it is: another case or a space before ';' is 415", async () => {
    expect((await api.post(`${NS}/configmaps`, { metadata: { name: 'patch-type' } })).status).toBe(201);
    const patch = (contentType: string) =>
      fetch(`${server.url}${NS}/configmaps/patch-type`, { method: 'PATCH', headers: { 'content-type': contentType }, body: '{"data":{"p":"1"}}' });
    expect((await patch('application/merge-patch+json; charset=utf-8')).status).toBe(200);
    for (const contentType of ['APPLICATION/MERGE-PATCH+JSON', 'application/merge-patch+json ;x']) {
      const res = await patch(contentType);
      expect(res.status).toBe(415);
      expect(statusOf(await res.text())).toMatchObject({ code: 415, reason: 'UnsupportedMediaType' });
    }
  });

  test('a Content-Type that mime.ParseMediaType refuses is 415 on a create; a trailing ; or a repeated equal parameter is not', async () => {
    const create = (contentType: string, name: string) =>
      fetch(`${server.url}${NS}/configmaps`, { method: 'POST', headers: { 'content-type': contentType }, body: JSON.stringify({ metadata: { name } }) });
    for (const [i, contentType] of [
      'application/json; foo',
      'application/json;a=b;a=c',
      'application/json;;',
      'application/json;a="x',
      'application/json x',
    ].entries()) {
      const res = await create(contentType, `mime-bad-${i}`);
      expect(res.status).toBe(415);
      expect(statusOf(await res.text())).toMatchObject({ code: 415, reason: 'UnsupportedMediaType' });
    }
    for (const [i, contentType] of ['application/json;', 'Application/JSON; charset="utf-8"', 'application/json;a=b;a=b'].entries()) {
      expect((await create(contentType, `mime-good-${i}`)).status).toBe(201);
    }
  });

  test('a malformed chunk size is answered 400 with a Status by the handler reading the body, and the connection closes', async () => {
    const res = await rawRequest(
      server.port,
      raw([`POST ${NS}/configmaps HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json', 'Transfer-Encoding: chunked'], 'zz\r\nabc\r\n0\r\n\r\n'),
    );
    expect(res.code).toBe(400);
    expect(statusOf(res.body)).toMatchObject({ code: 400, message: 'invalid byte in chunk length' });
    expect(res.closed).toBe(true);
  });

  test('an empty or %2F name is the collection, as in kube-apiserver (go-restful trims trailing slashes, RequestInfo too)', async () => {
    for (const name of ['', '%2F']) {
      const list = await api.get(`${NS}/configmaps/${name}`);
      expect(list.status).toBe(200);
      expect(list.body.kind).toBe('ConfigMapList');
      const deleted = await api.delete(`${NS}/configmaps/${name}?dryRun=All`);
      expect(deleted.status).toBe(200);
      expect(deleted.body.kind).toBe('ConfigMapList');
    }
    expect((await api.get(`${NS}/configmaps/target`)).status).toBe(200);
  });

  test('a client gone before its body arrived is not logged as an internal error', async () => {
    await expect(
      rawRequest(server.port, raw([`POST ${NS}/configmaps HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json', 'Content-Length: 1000'], '{"a":'), {
        timeoutMs: 500,
      }),
    ).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 300));
    expect(server.output()).not.toContain('internal error');
  });
});

interface Probe {
  stop(): Promise<{ latencies: number[]; failures: string[]; rssMax: number }>;
}

/** GETs /readyz every 50 ms and reads the RSS every 250 ms until stopped. */
function probe(of: ServerProcess = server): Probe {
  let running = true;
  const latencies: number[] = [];
  const failures: string[] = [];
  let rssMax = rssBytes(of);
  const rss = setInterval(() => (rssMax = Math.max(rssMax, rssBytes(of))), 250);
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      try {
        const res = await fetch(`${of.url}/readyz`, { signal: AbortSignal.timeout(10_000) });
        await res.text();
        if (res.status !== 200) failures.push(`readyz ${res.status}`);
      } catch (err) {
        failures.push(`readyz: ${(err as Error).message}`);
      }
      latencies.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  return {
    stop: async () => {
      running = false;
      clearInterval(rss);
      await loop;
      return { latencies, failures, rssMax };
    },
  };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

type Category = 'path' | 'query' | 'body' | 'patch' | 'header';

/** One hostile request of a category: what to send, or raw bytes. */
interface Hostile {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | null;
  raw?: string;
}

const fuzz = new Fuzzer(SEED);

/** JSON, merge and strategic merge patches of the target ConfigMap: odd operations, directives and sizes. */
function hostilePatch(): { type: string; body: string } {
  const pointer = fuzz.pick(['/data/k', '/data', '/metadata/labels', '/metadata/labels/a', '/metadata', '', '/data/-', '/x/y', '/metadata/annotations/~1a~0']);
  switch (fuzz.pick(['json', 'json', 'merge', 'strategic'])) {
    case 'json': {
      const ops = Array.from({ length: 1 + Math.floor(fuzz.random() * 6) }, () => {
        const op = fuzz.pick(['add', 'remove', 'replace', 'move', 'copy', 'test', 'nope']);
        const value = fuzz.pick([null, 'v', 1, { a: 'b' }, ['x'], 'y'.repeat(10_000), { nested: { deeper: [1, 2, { x: null }] } }]);
        return { op, path: pointer, from: fuzz.pick(['/data', '/metadata', '/data/k', '']), value };
      });
      if (fuzz.chance(0.1)) ops.push(...(copyBomb() as typeof ops));
      return { type: 'application/json-patch+json', body: JSON.stringify(fuzz.chance(0.05) ? { op: 'add' } : ops) };
    }
    case 'merge':
      return {
        type: 'application/merge-patch+json',
        body: JSON.stringify({ metadata: { labels: { a: null, b: fuzz.pick(['', 'x', null, 1]) } }, data: fuzz.pick([null, {}, { k: null }, { k: 1 }, []]) }),
      };
    default: {
      const directive = fuzz.pick([
        { $patch: fuzz.pick(['delete', 'replace', 'merge', 'nope']) },
        { $retainKeys: fuzz.pick([['data'], 'x', []]) },
        { '$setElementOrder/finalizers': [{ name: 'x' }] },
        { '$deleteFromPrimitiveList/finalizers': ['a', 'a'] },
        { metadata: { finalizers: Array.from({ length: 2000 }, (_, i) => `f${i % 500}`) } },
      ]);
      return { type: 'application/strategic-merge-patch+json', body: JSON.stringify({ data: { k: 'w' }, ...directive }) };
    }
  }
}

const HEADER_CASES: ((path: string) => string)[] = [
  (p) => raw([`GET ${p} HTTP/1.1`, 'Host: 127.0.0.1', 'Expect: junk']),
  (p) => raw([`GET ${p} HTTP/1.1`]),
  (p) => raw([`CONNECT ${p} HTTP/1.1`, 'Host: 127.0.0.1']),
  (p) => raw([`POST ${p}?dryRun=All HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json', 'Transfer-Encoding: chunked'], 'zz\r\nabc\r\n0\r\n\r\n'),
  (p) => raw([`POST ${p}?dryRun=All HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json', 'Content-Length: abc'], '{}'),
  (p) => raw([`POST ${p}?dryRun=All HTTP/1.1`, 'Host: 127.0.0.1', 'Content-Type: application/json', 'Content-Length: 2', 'Content-Length: 3'], '{}'),
  (p) => raw([`GET ${p} HTTP/1.1`, 'Host: 127.0.0.1', `X-Long: ${'h'.repeat(20_000)}`]),
  (p) => raw([`GET ${p} HTTP/1.1`, 'Host: 127.0.0.1', 'Bad Header Name: v']),
  (p) => raw([`GET ${p} HTTP/1.1`, 'Host: 127.0.0.1', 'Accept: application/json;as=Table;v=v1;g=meta.k8s.io, */*;q=x']),
  (p) => raw([`GET ${p} HTTP/1.1`, 'Host: 127.0.0.1', 'Impersonate-User: nobody']),
  (p) => raw([`GET ${p} HTTP/1.1`, 'Host:', 'Accept-Encoding: gzip;q=nope']),
  (p) => raw([`GET ${p} HTTP/1.0`]),
  (p) => raw([`G\u0001T ${p} HTTP/1.1`, 'Host: 127.0.0.1']),
];

function hostile(category: Category, paths: string[], valid: Record<string, Buffer>): Hostile {
  const target = `${NS}/configmaps/target`;
  switch (category) {
    case 'path': {
      const method = fuzz.pick(['GET', 'GET', 'DELETE', 'PUT', 'POST']);
      return { method, path: `${fuzz.path(paths)}?${method === 'GET' ? 'timeoutSeconds=1' : 'dryRun=All'}`, headers: {}, body: null };
    }
    case 'query':
      // Watches end after a second; deletes are dry runs (the first value of a parameter is the one read).
      return {
        method: fuzz.pick(['GET', 'DELETE']),
        path: `${fuzz.pick([`${NS}/configmaps`, target, '/api/v1/pods'])}?dryRun=All&timeoutSeconds=1&${fuzz.query()}`,
        headers: {},
        body: null,
      };
    case 'body': {
      const contentType = fuzz.pick(FUZZ_MEDIA);
      const method = fuzz.pick(['POST', 'PUT']);
      const path = method === 'POST' ? `${NS}/configmaps?dryRun=All` : `${target}?dryRun=All`;
      return { method, path, headers: { 'Content-Type': contentType }, body: fuzz.body(valid, contentType) };
    }
    case 'patch': {
      const patch = hostilePatch();
      return { method: 'PATCH', path: `${target}?dryRun=All`, headers: { 'Content-Type': patch.type }, body: Buffer.from(patch.body) };
    }
    case 'header':
      return { method: '', path: '', headers: {}, body: null, raw: fuzz.pick(HEADER_CASES)(fuzz.pick([`${NS}/configmaps`, target, '/version', '/readyz'])) };
  }
}

/** A query that sets the request's own deadline (`timeout`, or a list's or watch's `timeoutSeconds`). */
const OWN_DEADLINE = /[?&](timeout|timeoutSeconds)=/;

/**
 * What is wrong with an answer to client input: a 5xx, or an error that is not a Status. A request
 * that set its own deadline may get kube's 504 Timeout Status: a dry-run delete of a collection of
 * a thousand objects under `timeout=1s` outlasts it in kube-apiserver too (its DeleteCollection
 * deletes one object at a time, each read from etcd first). Some 500s are kube's own (isKubesOwn500).
 */
function problemWith(answer: FuzzAnswer | RawReply, method: string, path: string): string | null {
  const contentType = 'contentType' in answer ? answer.contentType : (answer.headers['content-type'] ?? '');
  if (answer.code === 504 && OWN_DEADLINE.test(path) && statusOf(answer.body)?.reason === 'Timeout') return null;
  if (isKubesOwn500(method, answer.code, answer.body)) return null;
  if (answer.code >= 500) return `${answer.code} ${answer.body.slice(0, 300)}`;
  if (answer.code < 400 || method === 'HEAD') return null;
  if (contentType.startsWith('application/json')) {
    const status = statusOf(answer.body);
    return status?.code === answer.code ? null : `${answer.code} is not a Status: ${answer.body.slice(0, 200)}`;
  }
  if (contentType.startsWith('application/yaml')) return answer.body.includes('kind: Status') ? null : `${answer.code} YAML that is not a Status`;
  if (contentType.startsWith('application/vnd.kubernetes.protobuf') || contentType.startsWith('application/cbor')) return null;
  return `${answer.code} with a body of type "${contentType}": ${answer.body.slice(0, 200)}`;
}

test(
  `${REQUESTS} hostile requests (seed ${SEED}) while /readyz is probed: no 5xx, errors as Status, /readyz quick, RSS bounded, valid writes kept`,
  async () => {
    const valid = await validBodies(`${server.url}${NS}/configmaps/target`, ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf']);
    const paths = fuzzPaths('hostile');
    const categories: Category[] = ['path', 'query', 'body', 'patch', 'header'];

    const rssBefore = rssBytes();
    const readyz = probe();
    const problems: string[] = [];
    const written = new Map<string, string>();
    const codes = new Map<number, number>();
    const slowest: [number, string][] = [];
    let sent = 0;
    const worker = async (): Promise<void> => {
      while (sent < REQUESTS) {
        const n = sent++;
        // One valid write in ten, which must survive everything else.
        if (n % 10 === 0) {
          const name = `valid-${n}`;
          const res = await api.post(`${NS}/configmaps`, { metadata: { name }, data: { n: String(n) } });
          if (res.status !== 201) problems.push(`valid write ${name}: ${res.status} ${res.text.slice(0, 200)}`);
          else written.set(name, String(n));
          continue;
        }
        const category = categories[n % categories.length];
        const request = hostile(category, paths, valid);
        const shown = request.raw ?? `${request.method} ${request.path} ${request.body?.toString('latin1') ?? ''}`;
        const what = `${category}: ${JSON.stringify(shown.slice(0, 400))}`;
        let answer: FuzzAnswer | RawReply | string | null;
        const started = performance.now();
        if (request.raw !== undefined) {
          answer = await rawRequest(server.port, request.raw, { lingerMs: 20 }).catch((err: Error) => err.message);
        } else {
          answer = await sendRequest(server.port, request.method, request.path, request.headers, request.body);
        }
        slowest.push([performance.now() - started, what.slice(0, 160)]);
        if (answer === null) continue;
        if (typeof answer === 'string') {
          problems.push(`${what}: no answer: ${answer}`);
          continue;
        }
        codes.set(answer.code, (codes.get(answer.code) ?? 0) + 1);
        const problem = problemWith(answer, request.method, request.path);
        if (problem) problems.push(`${what}: ${problem}`);
      }
    };
    const [, ms] = await timed(() => Promise.all([worker(), worker(), worker(), worker()]));
    const { latencies, failures, rssMax } = await readyz.stop();
    const p99 = percentile(latencies, 99);
    process.stdout.write(
      `hostile: ${REQUESTS} requests in ${ms} ms, codes ${JSON.stringify(Object.fromEntries(codes))}; /readyz ${latencies.length} probes, ` +
        `p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms; ` +
        `RSS ${(rssBefore / 2 ** 20).toFixed(0)} MiB -> max ${(rssMax / 2 ** 20).toFixed(0)} MiB\n`,
    );
    slowest.sort((a, b) => b[0] - a[0]);
    process.stdout.write(
      `slowest: ${slowest
        .slice(0, 5)
        .map(([ms, what]) => `${ms.toFixed(0)} ms ${what}`)
        .join('\n  ')}\n`,
    );
    if (problems.length > 0) process.stdout.write(`server said: ${server.output().slice(-3000)}\n`);

    expect(problems).toEqual([]);
    expect(failures).toEqual([]);
    expect(p99).toBeLessThan(READYZ_P99_MS);
    expect(rssMax - rssBefore).toBeLessThan(RSS_GROWTH_BYTES);
    expect(written.size).toBe(Math.ceil(REQUESTS / 10));
    const list = await api.get(`${NS}/configmaps`);
    const stored = new Map((list.body.items as { metadata: { name: string }; data?: { n?: string } }[]).map((cm) => [cm.metadata.name, cm.data?.n]));
    for (const [name, n] of written) expect([name, stored.get(name)]).toEqual([name, n]);
    expect((await api.get(`${NS}/configmaps/target`)).body.data).toEqual({ k: 'v' });
    expect(server.output()).not.toContain('internal error');
  },
  STREAM_TIMEOUT_MS,
);

test("the event loop is measured: kapi_event_loop_lag_seconds beside Node's process metrics", async () => {
  const metrics = (await api.get('/metrics', { accept: 'text/plain' })).text;
  expect(metrics).toContain('# TYPE kapi_event_loop_lag_seconds histogram');
  expect(metrics).toContain('# TYPE nodejs_eventloop_lag_seconds gauge');
  const sample = (le: string): number => Number(new RegExp(`^kapi_event_loop_lag_seconds_bucket\\{le="${le}"\\} (\\d+)`, 'm').exec(metrics)?.[1]);
  const count = Number(/^kapi_event_loop_lag_seconds_count (\d+)/m.exec(metrics)?.[1]);
  // a sample every 100 ms since the server started
  expect(count).toBeGreaterThan(50);
  process.stdout.write(`event loop lag: ${count} samples, ${count - sample('0.1')} over 100 ms, ${count - sample('1')} over 1 s\n`);
});

test('names a client makes up add no metric series (kube instruments only the routes it installs; dryRun is "All" or "invalid")', async () => {
  const series = async (): Promise<string[]> =>
    (await api.get('/metrics', { accept: 'text/plain' })).text.split('\n').filter((l) => /^apiserver_(request_total|longrunning_requests)\{/.test(l));
  for (let i = 0; i < 20; i++) {
    await api.get(`/apis/made-up-${i}.example/v${i}/things-${i}?watch=1&timeoutSeconds=1`);
    await api.get(`${NS}/made-up-${i}`);
    await api.get(`${NS}/configmaps/target/made-up-${i}`);
    await api.patch(`${NS}/configmaps/target?dryRun=made-up-${i}`, { data: { k: 'v' } }, 'application/merge-patch+json');
  }
  const lines = await series();
  expect(lines.filter((l) => l.includes('made-up'))).toEqual([]);
  expect(new Set(lines.map((l) => /dry_run="([^"]*)"/.exec(l)?.[1]).filter((v) => v !== undefined))).toEqual(new Set(['', 'All', 'invalid']));
  expect(lines.some((l) => l.includes('verb="PATCH",dry_run="invalid"') && l.includes('resource="configmaps"'))).toBe(true);
});
