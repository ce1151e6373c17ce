import { request } from 'node:http';
import { eventually, RawEtcd } from '../harness/etcd-keys';
import { Api } from '../harness/http';
import { startServerProcess, type ServerProcess } from '../harness/process';
import { livezProbe } from '../harness/raw-http';

/**
 * A seeded fuzzer over what test/integration/fuzz.test.ts leaves fixed: methods, paths, query
 * strings, headers, and bodies in every media type (JSON, YAML, Protobuf, CBOR, the patch types).
 * Against the built server as a process: every answer is an HTTP answer, a JSON one of 4xx/5xx is a
 * Status, the process stays up, /livez answers within 1 s throughout, and etcd is left as it was
 * (every write is a dry run).
 */

const SEED = 20261123;
const REQUESTS = 1500;

function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = rng(SEED);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
const chance = (p: number): boolean => random() < p;

const NS = '/api/v1/namespaces/fuzz';
const PATHS = [
  `${NS}/configmaps`,
  `${NS}/configmaps/target`,
  `${NS}/configmaps/target/status`,
  `${NS}/pods`,
  `${NS}/pods/p/binding`,
  `${NS}/pods/p/eviction`,
  `${NS}/secrets`,
  `${NS}/serviceaccounts/default/token`,
  '/api/v1/namespaces',
  '/api/v1/namespaces/fuzz',
  '/api/v1/namespaces/fuzz/finalize',
  '/api/v1/nodes',
  '/apis/apps/v1/namespaces/fuzz/deployments',
  '/apis/apps/v1/namespaces/fuzz/deployments/d/scale',
  '/apis/rbac.authorization.k8s.io/v1/clusterroles',
  '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
  '/apis/authentication.k8s.io/v1/tokenreviews',
  '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
  '/api',
  '/api/v1',
  '/apis',
  '/apis/apps',
  '/version',
  '/healthz',
  '/readyz/etcd',
  '/openapi/v2',
  '/openapi/v3',
  '/metrics',
  '/',
];

const SEGMENT_NOISE = ['%', '%zz', '%2F', '%00', '..', '.', '', '%C3%A9', '~', ';x', 'a'.repeat(300), '%252F', 'watch', '*', ':'];

function fuzzPath(): string {
  let segments = pick(PATHS).split('/').slice(1);
  const edits = chance(0.5) ? 0 : 1 + Math.floor(random() * 2);
  for (let i = 0; i < edits; i++) {
    const at = Math.floor(random() * (segments.length + 1));
    if (chance(0.4)) segments.splice(at, 0, pick(SEGMENT_NOISE));
    else if (chance(0.5)) segments.splice(at, 1);
    else segments[Math.min(at, segments.length - 1)] += pick(SEGMENT_NOISE);
  }
  if (chance(0.05)) segments = ['', ...segments];
  return `/${segments.join('/')}`;
}

const QUERY_KEYS = [
  'watch',
  'limit',
  'continue',
  'resourceVersion',
  'resourceVersionMatch',
  'labelSelector',
  'fieldSelector',
  'timeout',
  'pretty',
  'fieldManager',
  'fieldValidation',
  'propagationPolicy',
  'gracePeriodSeconds',
  'allowWatchBookmarks',
  'sendInitialEvents',
  'includeObject',
  'force',
  'orphanDependents',
  'verbose',
  'exclude',
  'hash',
  'x',
];
const QUERY_VALUES = [
  '',
  '0',
  '1',
  '-1',
  'true',
  'false',
  'x',
  '%',
  '%zz',
  '99999999999999999999',
  '9223372036854775807',
  'a,b',
  'a!=b',
  'a in (b',
  'metadata.name=x',
  'Strict',
  'Ignore',
  'Orphan',
  'Sometimes',
  'Exact',
  'NotOlderThan',
  'All',
  '1s',
  '-5s',
  'Object',
  'None',
  'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJ4In0',
  '\u00e9'.repeat(3),
  'b'.repeat(2000),
];

function fuzzQuery(): string {
  const pairs: string[] = [];
  const n = Math.floor(random() * 4);
  for (let i = 0; i < n; i++) {
    const key = pick(QUERY_KEYS);
    const value = pick(QUERY_VALUES);
    pairs.push(chance(0.1) ? key : `${encodeURIComponent(key)}=${chance(0.8) ? encodeURIComponent(value) : value.replace(/[^\x21-\x7e]/g, '')}`);
  }
  return pairs.join('&');
}

const MEDIA = [
  'application/json',
  'application/yaml',
  'application/vnd.kubernetes.protobuf',
  'application/cbor',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/json-patch+json',
  'application/apply-patch+yaml',
  'application/apply-patch+cbor',
  'text/plain',
  'application/json;charset=latin1',
  'garbage',
  '*/*',
  'application/json;as=Table;v=v1;g=meta.k8s.io',
  'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
  'application/vnd.kubernetes.protobuf;stream=watch',
  'application/json;q=x',
  'application/json, application/yaml;q=0.5',
];

/** Valid encodings of one ConfigMap in each format, mutated: cut, bytes flipped, or other formats' bytes. */
function fuzzBody(valid: Record<string, Buffer>, contentType: string): Buffer {
  const base = valid[contentType.split(';')[0]] ?? pick(Object.values(valid));
  const out = Buffer.from(base);
  switch (Math.floor(random() * 7)) {
    case 0:
      return out.subarray(0, Math.floor(random() * out.length));
    case 1: {
      for (let i = 0; i < 1 + random() * 8; i++) out[Math.floor(random() * out.length)] = Math.floor(random() * 256);
      return out;
    }
    case 2:
      return Buffer.from(Array.from({ length: Math.floor(random() * 200) }, () => Math.floor(random() * 256)));
    case 3:
      return Buffer.from(pick(Object.values(valid)));
    case 4: {
      const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x]'];
      for (let i = 1; i < 10; i++)
        lines.push(
          `a${i}: &a${i} [${Array(9)
            .fill(`*a${i - 1}`)
            .join(', ')}]`,
        );
      return Buffer.from(lines.join('\n'));
    }
    case 5:
      // Shared references (CBOR tags 28, 29), and a length far past the body (Protobuf).
      return chance(0.5)
        ? Buffer.from([0xd9, 0xd9, 0xf7, 0x82, 0xd8, 0x1c, 0x82, 0x01, 0x02, 0xd8, 0x1d, 0x00])
        : Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x12, 0xff, 0xff, 0xff, 0xff, 0x0f]);
    default:
      return out;
  }
}

interface Answer {
  code: number;
  contentType: string;
  body: string;
}

/** One request, with whatever headers and bytes it has; null when the client refused to send it. */
function send(port: number, method: string, path: string, headers: Record<string, string>, body: Buffer | null): Promise<Answer | string | null> {
  return new Promise((resolve) => {
    let req;
    try {
      req = request({ host: '127.0.0.1', port, method, path, headers, agent: false, timeout: 10_000 }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ code: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString() }),
        );
        res.on('error', (err) => resolve(`response error ${err.message}`));
      });
    } catch {
      resolve(null);
      return;
    }
    req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', (err) => resolve(`request error ${err.message}`));
    req.end(body ?? undefined);
  });
}

let server: ServerProcess & { port: number; prefix: string };
let etcd: RawEtcd;

beforeAll(async () => {
  server = await startServerProcess(['--feature-gates=CBORServingAndStorage=true']);
  etcd = new RawEtcd();
});

afterAll(async () => {
  etcd.close();
  await server.stop();
});

/** Every key and value but the leases kapi itself renews (leader election, replica identity). */
async function keyspace(): Promise<string[]> {
  const kvs = await etcd.client.getAll().prefix(`${server.prefix}/`).buffers();
  return Object.entries(kvs)
    .filter(([k]) => !k.startsWith(`${server.prefix}/leases/kube-system/`))
    .map(([k, v]) => `${k}=${v.toString('base64')}`)
    .sort();
}

test(`${REQUESTS} fuzzed requests (seed ${SEED}): every one answered, errors as Status, /livez always quick, etcd untouched`, async () => {
  const api = new Api(server.url);
  expect((await api.post('/api/v1/namespaces', { metadata: { name: 'fuzz' } })).status).toBe(201);
  const target = await api.post(`${NS}/configmaps`, { metadata: { name: 'target', labels: { a: 'b' } }, data: { k: 'v' } });
  expect(target.status).toBe(201);
  const encoded = async (accept: string): Promise<Buffer> =>
    Buffer.from(await (await fetch(`${server.url}${NS}/configmaps/target`, { headers: { Accept: accept } })).arrayBuffer());
  const valid: Record<string, Buffer> = {
    'application/json': await encoded('application/json'),
    'application/yaml': await encoded('application/yaml'),
    'application/vnd.kubernetes.protobuf': await encoded('application/vnd.kubernetes.protobuf'),
    'application/cbor': await encoded('application/cbor'),
    'application/json-patch+json': Buffer.from('[{"op":"replace","path":"/data/k","value":"w"}]'),
  };
  valid['application/merge-patch+json'] = valid['application/json'];
  valid['application/strategic-merge-patch+json'] = valid['application/json'];
  valid['application/apply-patch+yaml'] = valid['application/yaml'];
  valid['application/apply-patch+cbor'] = valid['application/cbor'];
  expect(valid['application/vnd.kubernetes.protobuf'].subarray(0, 4).toString('latin1')).toBe('k8s\u0000');

  // The APF configuration producer finishes its start-up writes (bootstrap objects, their Dangling condition) first.
  await eventually('the bootstrap flow schemas judged', async () => {
    const items = (await api.get('/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas')).body.items as { status?: { conditions?: unknown[] } }[];
    return items.length >= 11 && items.every((fs) => fs.status?.conditions?.length) ? true : undefined;
  });
  const before = await keyspace();
  const probe = livezProbe(server.url, 100);
  const problems: string[] = [];
  const codes = new Map<number, number>();
  let sent = 0;
  const worker = async (): Promise<void> => {
    while (sent < REQUESTS) {
      sent++;
      const method = pick(['GET', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'FOO']);
      const mutating = !['GET', 'HEAD', 'OPTIONS'].includes(method);
      // Watches end after a second; writes are dry runs (the first value of a parameter is the one read).
      const query = [mutating ? 'dryRun=All' : 'timeoutSeconds=1', fuzzQuery()].filter(Boolean).join('&');
      const path = `${fuzzPath()}?${query}`;
      const headers: Record<string, string> = {};
      if (chance(0.8)) headers.Accept = pick(MEDIA);
      if (chance(0.2)) headers['Accept-Encoding'] = pick(['gzip', 'br', 'gzip;q=0', '*', 'x']);
      if (chance(0.2)) headers['User-Agent'] = pick(['curl/8', 'Mozilla/5.0', '', 'k'.repeat(500), 'kubectl/v1.32 (linux/amd64)']);
      if (chance(0.1)) headers['X-Fuzz'] = 'v'.repeat(Math.floor(random() * 5000));
      let body: Buffer | null = null;
      if (mutating || chance(0.05)) {
        const contentType = pick(MEDIA);
        headers['Content-Type'] = contentType;
        body = fuzzBody(valid, contentType);
      }
      const answer = await send(server.port, method, path, headers, body);
      if (answer === null) continue;
      const what = `${method} ${path.slice(0, 200)} [${headers.Accept ?? ''} / ${headers['Content-Type'] ?? ''}]`;
      if (typeof answer === 'string') {
        problems.push(`${what}: ${answer}`);
        continue;
      }
      codes.set(answer.code, (codes.get(answer.code) ?? 0) + 1);
      if (answer.code >= 500 && answer.code !== 503 && answer.code !== 504) problems.push(`${what}: ${answer.code} ${answer.body.slice(0, 300)}`);
      if (answer.code >= 400 && method !== 'HEAD' && answer.contentType.startsWith('application/json')) {
        const status = JSON.parse(answer.body);
        if (status.kind !== 'Status' || status.code !== answer.code) problems.push(`${what}: ${answer.code} is not a Status: ${answer.body.slice(0, 200)}`);
      }
      if (answer.code >= 400 && !answer.contentType) problems.push(`${what}: ${answer.code} without a body type`);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  const { slowestMs, failures, probes } = await probe.stop();
  process.stdout.write(`fuzz: ${REQUESTS} requests, codes ${JSON.stringify(Object.fromEntries(codes))}, ${probes} livez probes, slowest ${slowestMs} ms\n`);

  if (problems.length > 0) process.stdout.write(`server said: ${server.output().slice(-3000)}\n`);
  expect(problems).toEqual([]);
  expect(failures).toEqual([]);
  expect(slowestMs).toBeLessThan(1000);
  expect(server.child.exitCode).toBeNull();
  expect(await keyspace()).toEqual(before);
}, 55_000);
