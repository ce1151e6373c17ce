import { freePort } from '../../src/server/embedded-etcd';
import { startEtcdCluster, type EtcdCluster } from '../harness/etcd-cluster';
import { createEstablished, eventually, simpleCrd } from '../harness/crds';
import { Api } from '../harness/http';
import { startServerProcess, type ServerProcess } from '../harness/process';
import { uniquePrefix } from '../harness/shared-etcd';
import { openWatch } from '../harness/watch';

/**
 * Issue 15, HA: a 3-member etcd cluster and two kapi replicas on one prefix. The namespace
 * controller, garbage collector and CRD status run on the holder of kube-system/kapi-controller-manager
 * only, and move to the other replica when it is killed outright or paused past its lease (and back
 * again: a replica that stood down starts its controllers anew when it leads again); every replica
 * serves every CRD before it is reported Established.
 */

let etcd: EtcdCluster;
const replicas: ServerProcess[] = [];
const LEASE = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kapi-controller-manager';
const LEASE_SECONDS = 8;

beforeAll(async () => {
  etcd = await startEtcdCluster({ size: 3 });
  const prefix = uniquePrefix('ha');
  for (let i = 0; i < 2; i++) {
    // A shorter lease and renew deadline than kube-controller-manager's (15 s, 10 s; its 2 s retry
    // period kept), through its own flags: each failover below waits out one lease.
    replicas.push(
      await startServerProcess(
        [
          `--etcd-servers=${etcd.endpoints.join(',')}`,
          `--leader-elect-lease-duration=${LEASE_SECONDS}s`,
          '--leader-elect-renew-deadline=5s',
          '--leader-elect-retry-period=2s',
        ],
        { prefix, port: await freePort() },
      ),
    );
  }
}, 60_000);

afterAll(async () => {
  // A replica killed by a test has exited already (with a signal, so no exit code).
  for (const replica of replicas) if (replica.child.exitCode === null && replica.child.signalCode === null) await replica.stop();
  await etcd?.stop();
});

const api = (i: number): Api => new Api(replicas[i].url);

/** leader_election_master_status of a replica: 1 leading, 0 standing by, null when it does not answer. */
async function leading(i: number): Promise<number | null> {
  try {
    const text = (await api(i).get('/metrics')).text;
    const m = /^leader_election_master_status\{name="kapi-controller-manager"\} (\d)$/m.exec(text);
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

async function leaderIndex(): Promise<number> {
  return eventually('one leader among the replicas', async () => {
    const states = [await leading(0), await leading(1)];
    return states.filter((s) => s === 1).length === 1 && states.includes(0) ? states.indexOf(1) : undefined;
  });
}

test('the controllers run on exactly one replica, the holder of the lease', async () => {
  const leader = await leaderIndex();
  const lease = (await api(1 - leader).get(LEASE)).body;
  expect(lease.spec).toMatchObject({ leaseDurationSeconds: LEASE_SECONDS });
  expect(lease.spec.holderIdentity).toMatch(/^.+_[0-9a-f-]{36}$/);
  // Identity leases: one per replica, each recording what it serves.
  const identities = (
    await api(0).get('/apis/coordination.k8s.io/v1/namespaces/kube-system/leases?labelSelector=apiserver.kubernetes.io%2Fidentity%3Dkube-apiserver')
  ).body.items;
  expect(identities).toHaveLength(2);
  for (const i of identities) expect(i.metadata.name).toMatch(/^kube-apiserver-[a-z2-7]{26}$/);
  // Both report the leader-only controllers healthy: running on one, standing by on the other.
  for (const i of [0, 1]) expect((await api(i).get('/readyz?verbose')).text).toContain('[+]namespace-controller ok');
  // And the work gets done: a namespace created on one replica and deleted on the other goes away.
  expect((await api(leader).post('/api/v1/namespaces', { metadata: { name: 'ha-ns' } })).status).toBe(201);
  expect((await api(leader).post('/api/v1/namespaces/ha-ns/configmaps', { metadata: { name: 'x' } })).status).toBe(201);
  expect((await api(1 - leader).delete('/api/v1/namespaces/ha-ns')).status).toBe(200);
  await eventually('ha-ns to be gone', async () => ((await api(0).get('/api/v1/namespaces/ha-ns')).status === 404 ? true : undefined));
});

test('a write through one replica is read and watched through the other', async () => {
  const watch = await openWatch(`${replicas[1].url}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0`);
  try {
    const created = await api(0).post('/api/v1/namespaces/default/configmaps', { metadata: { name: 'across' }, data: { a: '1' } });
    expect(created.status).toBe(201);
    const read = await api(1).get('/api/v1/namespaces/default/configmaps/across');
    expect(read.status).toBe(200);
    expect(read.body.metadata.resourceVersion).toBe(created.body.metadata.resourceVersion);
    for (;;) {
      const event = await watch.next(10_000);
      if (event.object.metadata.name === 'across') {
        expect(event.type).toBe('ADDED');
        expect(event.object.data).toEqual({ a: '1' });
        break;
      }
    }
  } finally {
    watch.close();
  }
});

test('a CRD is served by both replicas as soon as it is Established (20 times, no 404)', async () => {
  const notFound: string[] = [];
  const times: number[] = [];
  for (let n = 0; n < 20; n++) {
    const via = n % 2;
    const plural = `things${n}`;
    times.push(await createEstablished(api(via), simpleCrd('ha.example.com', plural, `Thing${n}`)));
    for (const i of [1 - via, via]) {
      const res = await api(i).post(`/apis/ha.example.com/v1/namespaces/default/${plural}`, {
        apiVersion: 'ha.example.com/v1',
        kind: `Thing${n}`,
        metadata: { name: `t-${i}` },
      });
      if (res.status !== 201) notFound.push(`${plural} on replica ${i}: ${res.status}`);
    }
  }
  expect(notFound).toEqual([]);
  console.log(`HA: CRD Established in ${Math.min(...times)}–${Math.max(...times)} ms (median ${times.sort((a, b) => a - b)[10]} ms)`);
});

test('a leader paused past its lease stands down when it resumes; the other replica leads meanwhile', async () => {
  const leader = await leaderIndex();
  const other = 1 - leader;
  replicas[leader].child.kill('SIGSTOP');
  try {
    await eventually('the other replica to lead', async () => ((await leading(other)) === 1 ? true : undefined), 25_000);
  } finally {
    replicas[leader].child.kill('SIGCONT');
  }
  // Its renewals now fail: it stops its controllers and stands by (to lead again in the next test).
  await eventually('the resumed replica to stand by', async () => ((await leading(leader)) === 0 ? true : undefined), 15_000);
  expect(await leading(other)).toBe(1);
}, 60_000);

test('when the leader is killed outright, the other replica takes over within the lease duration', async () => {
  const leader = await leaderIndex();
  const survivor = 1 - leader;
  const before = (await api(survivor).get(LEASE)).body.spec;
  const killed = Date.now();
  await replicas[leader].stop('SIGKILL');
  await eventually('the survivor to lead', async () => ((await leading(survivor)) === 1 ? true : undefined), 25_000);
  const failoverMs = Date.now() - killed;
  const after = (await api(survivor).get(LEASE)).body.spec;
  expect(after.holderIdentity).not.toBe(before.holderIdentity);
  expect(after.leaseTransitions).toBe((before.leaseTransitions ?? 0) + 1);
  // The lease counts from the leader's last renewal, at most one 2 s retry period before the kill
  // (with kube's 15 s lease, 13.6-14.5 s was seen on a quiet machine); the bound leaves the issue's
  // 5 s of room for a loaded one.
  expect(failoverMs).toBeLessThan((LEASE_SECONDS + 5) * 1000);
  // The new leader's controllers work, though it led before and stood down (the previous test):
  // each started again, the service account controller's default ServiceAccount among them.
  expect((await api(survivor).post('/api/v1/namespaces', { metadata: { name: 'after-failover' } })).status).toBe(201);
  await eventually(
    'the default ServiceAccount',
    async () => ((await api(survivor).get('/api/v1/namespaces/after-failover/serviceaccounts/default')).status === 200 ? true : undefined),
    15_000,
  );
  await eventually(
    'the root CA ConfigMap',
    async () => ((await api(survivor).get('/api/v1/namespaces/after-failover/configmaps/kube-root-ca.crt')).status === 200 ? true : undefined),
    15_000,
  );
  expect((await api(survivor).delete('/api/v1/namespaces/after-failover')).status).toBe(200);
  await eventually(
    'after-failover to be gone',
    async () => ((await api(survivor).get('/api/v1/namespaces/after-failover')).status === 404 ? true : undefined),
    15_000,
  );
  console.log(`HA: failover after kill -9 of the leader took ${failoverMs} ms`);
}, 60_000);
