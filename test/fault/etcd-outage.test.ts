import { startEtcdCluster, type EtcdCluster } from '../harness/etcd-cluster';
import { configMap, loadFor, postJson, summarize, timed, timeUntil, WatchRecorder, type Sample } from '../harness/fault-load';
import { startServerProcess, type ServerProcess } from '../harness/process';

/**
 * kapi's only etcd is paused (SIGSTOP) and then killed and restarted, under a steady trickle of
 * reads, writes and readiness probes. kapi is never restarted.
 */
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('etcd outage', () => {
  let etcd: EtcdCluster;
  let kapi: ServerProcess;
  let watch: WatchRecorder;
  const ns = 'outage';
  /** No storage call waits longer than its retry window (10 s) plus one attempt (3 s). */
  const LONGEST_ALLOWED_MS = 14_000;
  const ACCEPTED = new Set([200, 201, 429, 503, 504]);

  beforeAll(async () => {
    etcd = await startEtcdCluster({ size: 1 });
    kapi = await startServerProcess([`--etcd-servers=${etcd.endpoints[0]}`]);
    expect((await timed('ns', `${kapi.url}/api/v1/namespaces`, postJson({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }))).status).toBe(201);
    const list = await timed('list', `${kapi.url}/api/v1/namespaces/${ns}/configmaps`);
    watch = await WatchRecorder.open(`${kapi.url}/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${list.body.metadata.resourceVersion}`);
  });
  afterAll(async () => {
    watch?.close();
    await kapi?.stop();
    await etcd?.stop();
  });

  const cms = (): string => `${kapi.url}/api/v1/namespaces/${ns}/configmaps`;
  let n = 0;
  /** Cached reads, consistent reads, writes (each through the namespace lookup) and /readyz. */
  const batch = (): Promise<Sample>[] => [
    timed('list rv=0', `${cms()}?resourceVersion=0`),
    timed('list', cms()),
    timed('create', cms(), postJson(configMap(`load-${n++}`))),
    timed('readyz', `${kapi.url}/readyz`),
  ];

  function expectAnswers(samples: Sample[]): void {
    for (const s of samples) {
      if (s.what === 'readyz') continue;
      expect({ what: s.what, status: s.status, accepted: ACCEPTED.has(s.status) }).toEqual({ what: s.what, status: s.status, accepted: true });
      if (s.status >= 400) {
        expect(s.body).toMatchObject({ kind: 'Status', status: 'Failure', code: s.status });
        expect(s.body.message).toBeTruthy();
      }
    }
    for (const s of samples) expect(s.ms).toBeLessThan(LONGEST_ALLOWED_MS);
  }

  /** /readyz answers that started while etcd was away (and ended before it was back) are not 200. */
  function expectReadyzTruthful(samples: Sample[], awayFrom: number, awayUntil: number): void {
    const during = samples.filter((s) => s.what === 'readyz' && s.start > awayFrom + 100 && s.start + s.ms < awayUntil);
    expect(during.length).toBeGreaterThan(0);
    for (const s of during) expect(s.status).not.toBe(200);
  }

  async function recovery(): Promise<{ writeMs: number; readyMs: number }> {
    const start = Date.now();
    const writeMs = await timeUntil(async () => (await timed('create', cms(), postJson(configMap(`probe-${n++}`)))).status === 201, 30_000);
    await timeUntil(async () => (await timed('readyz', `${kapi.url}/readyz`)).status === 200, 30_000);
    return { writeMs, readyMs: Date.now() - start };
  }

  async function expectWatchAlive(name: string): Promise<void> {
    expect((await timed('create', cms(), postJson(configMap(name)))).status).toBe(201);
    const missing = await watch.waitForAll('ADDED', [name]);
    // Still open and delivering, or (allowed) ended cleanly by the server.
    if (watch.state !== 'clean') {
      expect(watch.state).toBe('open');
      expect(missing).toEqual([]);
    }
  }

  function report(fault: string, samples: Sample[], rec: { writeMs: number; readyMs: number }, logLines: string[]): void {
    const s = summarize(samples.filter((x) => x.what !== 'readyz'));
    console.log(
      `${fault}: ${s.requests} requests, ${s.failed} failed ${JSON.stringify(s.byStatus)}, longest wait ${s.longestMs} ms; ` +
        `writes back ${rec.writeMs} ms and /readyz green ${rec.readyMs} ms after etcd returned; ${logLines.length} log lines:\n${logLines.join('\n')}`,
    );
  }

  /** Logs under a fault: state changes, not one line (or stack trace) per failed call. */
  function expectQuietLogs(lines: string[]): void {
    expect(lines.filter((l) => /^\s+at /.test(l))).toEqual([]);
    expect(lines.length).toBeLessThan(15);
  }

  const logSince = (offset: number): string[] => kapi.output().slice(offset).split('\n').filter(Boolean);

  it('paused (SIGSTOP) for 10 s: bounded waits, 429/503/504 Status answers, truthful /readyz, watch kept', async () => {
    await timeUntil(async () => (await timed('readyz', `${kapi.url}/readyz`)).status === 200, 10_000);
    const logFrom = kapi.output().length;
    const pausedAt = Date.now();
    etcd.pause(0);
    const load = loadFor(10_000, 500, batch);
    try {
      await sleep(10_000);
    } finally {
      etcd.resume(0);
    }
    const resumedAt = Date.now();
    const samples = await load;
    const rec = await recovery();
    const logs = logSince(logFrom);
    report('etcd paused 10 s', samples, rec, logs);
    expectQuietLogs(logs);
    expectAnswers(samples);
    expectReadyzTruthful(samples, pausedAt, resumedAt);
    expect(samples.filter((s) => s.what === 'list rv=0').every((s) => s.status === 200)).toBe(true);
    await expectWatchAlive('after-pause');
  });

  it('killed, then restarted 6 s later: bounded waits, Status answers, truthful /readyz, watch kept', async () => {
    await timeUntil(async () => (await timed('readyz', `${kapi.url}/readyz`)).status === 200, 10_000);
    const logFrom = kapi.output().length;
    const killedAt = Date.now();
    await etcd.kill(0);
    const load = loadFor(6_000, 500, batch);
    // etcd serves again some time before restart() has seen it serve: only what ended before the
    // restart began was surely answered without it.
    let restartedAt = 0;
    try {
      await sleep(6_000);
    } finally {
      restartedAt = Date.now();
      await etcd.restart(0);
    }
    const samples = await load;
    const rec = await recovery();
    const logs = logSince(logFrom);
    report('etcd killed, restarted after 6 s', samples, rec, logs);
    expectQuietLogs(logs);
    expectAnswers(samples);
    expectReadyzTruthful(samples, killedAt, restartedAt);
    await expectWatchAlive('after-restart');
    expect(watch.state).toBe('open');
  });
});
