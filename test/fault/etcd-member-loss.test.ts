import { startEtcdCluster, type EtcdCluster } from '../harness/etcd-cluster';
import { configMap, postJson, summarize, timed, WatchRecorder, type Sample } from '../harness/fault-load';
import { startServerProcess, type ServerProcess } from '../harness/process';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * A 3-member etcd cluster under two kapi replicas with writes and watches running through both:
 * a follower is killed (and brought back), then the leader. No client request fails and no
 * client watch is closed.
 */
describe('etcd member loss on a 3-member cluster', () => {
  let etcd: EtcdCluster;
  const kapis: ServerProcess[] = [];
  const watches: WatchRecorder[] = [];
  const ns = 'member-loss';
  const created: string[] = [];

  beforeAll(async () => {
    etcd = await startEtcdCluster({ size: 3 });
    const servers = `--etcd-servers=${etcd.endpoints.join(',')}`;
    const first = await startServerProcess([servers]);
    kapis.push(first, await startServerProcess([servers], { prefix: first.prefix }));
    expect((await timed('ns', `${first.url}/api/v1/namespaces`, postJson({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }))).status).toBe(201);
    for (const kapi of kapis) {
      const list = await timed('list', `${kapi.url}/api/v1/namespaces/${ns}/configmaps`);
      expect(list.status).toBe(200);
      watches.push(await WatchRecorder.open(`${kapi.url}/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`));
    }
  }, 60_000);
  afterAll(async () => {
    for (const w of watches) w.close();
    await Promise.all(kapis.map((k) => k.stop()));
    await etcd?.stop();
  });

  let n = 0;
  /** Four writers, alternating replicas: create, then update what was created. */
  async function underLoad(fault: () => Promise<void>): Promise<Sample[]> {
    const samples: Sample[] = [];
    let running = true;
    const writer = async (w: number): Promise<void> => {
      while (running) {
        const kapi = kapis[n % 2];
        const name = `w${w}-${n++}`;
        const cms = `${kapi.url}/api/v1/namespaces/${ns}/configmaps`;
        const create = await timed('create', cms, postJson(configMap(name)));
        samples.push(create);
        if (create.status !== 201) continue;
        created.push(name);
        const other = kapis[n % 2];
        samples.push(
          await timed('patch', `${other.url}/api/v1/namespaces/${ns}/configmaps/${name}`, {
            method: 'PATCH',
            headers: { 'content-type': 'application/merge-patch+json' },
            body: JSON.stringify({ data: { k: 'patched' } }),
          }),
        );
        samples.push(await timed('list', `${other.url}/api/v1/namespaces/${ns}/configmaps?limit=5`));
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    try {
      await sleep(1000);
      await fault();
      await sleep(1000);
    } finally {
      running = false;
      await Promise.all(writers);
    }
    return samples;
  }

  function check(fault: string, samples: Sample[]): void {
    const s = summarize(samples);
    const failures = samples.filter((x) => x.status < 200 || x.status >= 300).map((x) => `${x.what} ${x.status} ${JSON.stringify(x.body).slice(0, 200)}`);
    console.log(`${fault}: ${s.requests} requests through 2 replicas, ${s.failed} failed ${JSON.stringify(s.byStatus)}, longest wait ${s.longestMs} ms`);
    expect(failures).toEqual([]);
    expect(watches.map((w) => w.state)).toEqual(['open', 'open']);
  }

  async function checkWatchesSawEverything(): Promise<void> {
    for (const w of watches) expect(await w.waitForAll('ADDED', created)).toEqual([]);
    expect(watches.map((w) => w.state)).toEqual(['open', 'open']);
  }

  it('a follower killed, then restarted: no failed request, no watch closed', async () => {
    const leader = await etcd.waitForLeader();
    const follower = (leader + 1) % 3;
    const samples = await underLoad(async () => {
      await etcd.kill(follower);
      await sleep(5000);
      await etcd.restart(follower);
    });
    check(`follower ${follower} killed for 5 s`, samples);
    await checkWatchesSawEverything();
  });

  it('a follower paused (SIGSTOP) for 8 s: no failed request, no watch closed', async () => {
    const leader = await etcd.waitForLeader();
    const follower = (leader + 2) % 3;
    const samples = await underLoad(async () => {
      etcd.pause(follower);
      try {
        await sleep(8000);
      } finally {
        etcd.resume(follower);
      }
    });
    check(`follower ${follower} paused for 8 s`, samples);
    await checkWatchesSawEverything();
  });

  it('the leader killed, then restarted: no failed request, no watch closed', async () => {
    const leader = await etcd.waitForLeader();
    let electedAfterMs = 0;
    const samples = await underLoad(async () => {
      const killedAt = Date.now();
      await etcd.kill(leader);
      await etcd.waitForLeader();
      electedAfterMs = Date.now() - killedAt;
      await sleep(4000);
      await etcd.restart(leader);
    });
    console.log(`a new etcd leader was elected ${electedAfterMs} ms after the leader was killed`);
    check(`leader ${leader} killed`, samples);
    await checkWatchesSawEverything();
  });
});
