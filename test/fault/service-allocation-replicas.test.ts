import { freePort } from '../../src/server/embedded-etcd';
import { Api } from '../harness/http';
import { kubectl, startServerProcess, type ServerProcess } from '../harness/process';
import { uniquePrefix } from '../harness/shared-etcd';

/**
 * Issue 14: two kapi processes on one etcd prefix hand out cluster IPs and node ports for 2,000
 * Services created at once through both, and never the same value twice: IPs are taken by creating
 * their IPAddress (create-if-absent), node ports by guarded updates of the one bitmap key.
 */

const TOTAL = 2000;
const CONCURRENCY = 50;
const replicas: (ServerProcess & { port: number; prefix: string })[] = [];

beforeAll(async () => {
  const prefix = uniquePrefix('alloc');
  for (let i = 0; i < 2; i++) replicas.push(await startServerProcess([], { prefix, port: await freePort() }));
}, 60_000);

afterAll(async () => {
  for (const replica of replicas) await replica.stop();
});

test('2,000 Services created concurrently through two replicas get distinct clusterIPs and nodePorts', async () => {
  const apis = replicas.map((r) => new Api(r.url));
  const failures: string[] = [];
  let next = 0;
  const started = Date.now();
  const worker = async (): Promise<void> => {
    for (let i = next++; i < TOTAL; i = next++) {
      // Every other Service is a NodePort one: 1,000 node ports out of the 2,768 of the range.
      const body = {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: `s-${i}` },
        spec: { type: i % 2 === 0 ? 'NodePort' : 'ClusterIP', selector: { app: `s-${i}` }, ports: [{ port: 80 }] },
      };
      const res = await apis[i % 2].post('/api/v1/namespaces/default/services', body);
      if (res.status !== 201) failures.push(`s-${i}: ${res.status} ${res.text}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (Date.now() - started) / 1000;
  expect(failures).toEqual([]);
  console.log(`created ${TOTAL} Services through 2 replicas in ${seconds.toFixed(1)} s (${Math.round(TOTAL / seconds)}/s)`);

  const list = (await apis[0].get('/api/v1/namespaces/default/services')).body.items as {
    metadata: { name: string };
    spec: { clusterIP: string; ports: { nodePort?: number }[] };
  }[];
  const mine = list.filter((s) => s.metadata.name.startsWith('s-'));
  expect(mine).toHaveLength(TOTAL);
  const ips = mine.map((s) => s.spec.clusterIP);
  expect(new Set(ips).size).toBe(TOTAL);
  const nodePorts = mine.flatMap((s) => s.spec.ports.map((p) => p.nodePort)).filter((p): p is number => p !== undefined);
  expect(nodePorts).toHaveLength(TOTAL / 2);
  expect(new Set(nodePorts).size).toBe(TOTAL / 2);
  // Every IP has its IPAddress naming its Service, and no IPAddress is left over.
  const addresses = (await apis[1].get('/apis/networking.k8s.io/v1/ipaddresses')).body.items as {
    metadata: { name: string };
    spec: { parentRef: { name: string } };
  }[];
  const owner = new Map(addresses.map((a) => [a.metadata.name, a.spec.parentRef.name]));
  for (const s of mine) expect(owner.get(s.spec.clusterIP)).toBe(s.metadata.name);
  expect(addresses).toHaveLength(TOTAL + 1);
});

test('kubectl get servicecidrs,ipaddresses', async () => {
  const res = await kubectl(replicas[0].url, ['get', 'servicecidrs,ipaddresses']);
  expect(res.stderr).toBe('');
  expect(res.stdout).toMatch(/^NAME\s+CIDRS\s+AGE\nservicecidr.networking.k8s.io\/kubernetes\s+10\.96\.0\.0\/12\s+\S+\n\nNAME\s+PARENTREF\n/);
  expect(res.stdout).toMatch(/\nipaddress.networking.k8s.io\/10\.96\.0\.1\s+services\/default\/kubernetes\n/);
  const ip = await kubectl(replicas[1].url, ['get', 'ip', '10.96.0.1']);
  expect(ip.stdout).toMatch(/^NAME\s+PARENTREF\n10\.96\.0\.1\s+services\/default\/kubernetes\n$/);
});

test("with both replicas on 127.0.0.1, the kubernetes EndpointSlice and Endpoints list that address once, at a replica's secure port", async () => {
  const securePorts = replicas.map((r) => Number(new URL(r.secureUrl).port));
  for (const replica of replicas) {
    const api = new Api(replica.url);
    const slice = (await api.get('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes')).body;
    expect(slice.endpoints).toEqual([{ addresses: ['127.0.0.1'], conditions: { ready: true } }]);
    expect(securePorts).toContain(slice.ports[0].port);
    const endpoints = (await api.get('/api/v1/namespaces/default/endpoints/kubernetes')).body;
    expect(endpoints.subsets[0].addresses).toEqual([{ ip: '127.0.0.1' }]);
    const service = (await api.get('/api/v1/namespaces/default/services/kubernetes')).body;
    expect(service.spec.clusterIP).toBe('10.96.0.1');
  }
});
