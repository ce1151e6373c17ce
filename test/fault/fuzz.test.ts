import { eventually, RawEtcd } from '../harness/etcd-keys';
import { FUZZ_MEDIA, Fuzzer, fuzzPaths, isKubesOwn500, sendRequest, validBodies } from '../harness/fuzz';
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

const fuzz = new Fuzzer(SEED);
const pick = <T>(items: readonly T[]): T => fuzz.pick(items);
const chance = (p: number): boolean => fuzz.chance(p);
const NS = '/api/v1/namespaces/fuzz';
const PATHS = fuzzPaths('fuzz');

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

/** Every key and value but the leases kapi itself renews (leader election, replica identity, its master lease). */
async function keyspace(): Promise<string[]> {
  const kvs = await etcd.client.getAll().prefix(`${server.prefix}/`).buffers();
  return Object.entries(kvs)
    .filter(([k]) => !k.startsWith(`${server.prefix}/leases/kube-system/`) && !k.startsWith(`${server.prefix}/masterleases/`))
    .map(([k, v]) => `${k}=${v.toString('base64')}`)
    .sort();
}

test(`${REQUESTS} fuzzed requests (seed ${SEED}): every one answered, errors as Status, /livez always quick, etcd untouched`, async () => {
  const api = new Api(server.url);
  expect((await api.post('/api/v1/namespaces', { metadata: { name: 'fuzz' } })).status).toBe(201);
  const target = await api.post(`${NS}/configmaps`, { metadata: { name: 'target', labels: { a: 'b' } }, data: { k: 'v' } });
  expect(target.status).toBe(201);
  const valid = await validBodies(`${server.url}${NS}/configmaps/target`, [
    'application/json',
    'application/yaml',
    'application/vnd.kubernetes.protobuf',
    'application/cbor',
  ]);
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
      const query = [mutating ? 'dryRun=All' : 'timeoutSeconds=1', fuzz.query()].filter(Boolean).join('&');
      const path = `${fuzz.path(PATHS)}?${query}`;
      const headers: Record<string, string> = {};
      if (chance(0.8)) headers.Accept = pick(FUZZ_MEDIA);
      if (chance(0.2)) headers['Accept-Encoding'] = pick(['gzip', 'br', 'gzip;q=0', '*', 'x']);
      if (chance(0.2)) headers['User-Agent'] = pick(['curl/8', 'Mozilla/5.0', '', 'k'.repeat(500), 'kubectl/v1.32 (linux/amd64)']);
      if (chance(0.1)) headers['X-Fuzz'] = 'v'.repeat(Math.floor(fuzz.random() * 5000));
      let body: Buffer | null = null;
      if (mutating || chance(0.05)) {
        const contentType = pick(FUZZ_MEDIA);
        headers['Content-Type'] = contentType;
        body = fuzz.body(valid, contentType);
      }
      const answer = await sendRequest(server.port, method, path, headers, body);
      if (answer === null) continue;
      const what = `${method} ${path.slice(0, 200)} [${headers.Accept ?? ''} / ${headers['Content-Type'] ?? ''}]`;
      if (typeof answer === 'string') {
        problems.push(`${what}: ${answer}`);
        continue;
      }
      codes.set(answer.code, (codes.get(answer.code) ?? 0) + 1);
      if (answer.code >= 500 && answer.code !== 503 && answer.code !== 504 && !isKubesOwn500(method, answer.code, answer.body))
        problems.push(`${what}: ${answer.code} ${answer.body.slice(0, 300)}`);
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
