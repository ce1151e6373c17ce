import { Agent, request as httpsRequest } from 'node:https';
import type { ClientHttp2Session } from 'node:http2';
import path from 'node:path';
import { http2Request, http2Session } from '../harness/http2-client';
import { startSecureKapi, type SecureKapi } from '../harness/secure-process';
import { allStarted } from '../harness/process';
import { run } from '../harness/tls';

/**
 * HTTP/2 on the secure port (issue 24): ALPN h2 beside HTTP/1.1, kube's SETTINGS, identity per
 * connection, watches and many requests multiplexed on one connection, and `Connection: close`
 * answered with a GOAWAY, against the built server with real kubectl and node's HTTP/2 client.
 */

const TOKEN = 'h2-token';
let kapi: SecureKapi;
/** A second server, with --goaway-chance at its maximum. */
let chancy: SecureKapi;

beforeAll(async () => {
  [kapi, chancy] = await allStarted([
    startSecureKapi([`${TOKEN},h2-user,h2-uid,"h2-group"`], ['--http2-max-streams-per-connection=150']),
    startSecureKapi([], ['--goaway-chance=0.02']),
  ]);
}, 90_000);

afterAll(async () => {
  await Promise.all([kapi?.stop(), chancy?.stop()]);
});

const ns = '/api/v1/namespaces/default/configmaps';
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: name } });
const whoami = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
const selfSubjectReviews = '/apis/authentication.k8s.io/v1/selfsubjectreviews';

test("kubectl negotiates HTTP/2 and is sent kube-apiserver's SETTINGS (--http2-max-streams-per-connection, 256 KiB frames and windows)", async () => {
  const kubeconfig = path.join(kapi.process.dataDir, 'admin.kubeconfig');
  const got = await run('kubectl', ['--kubeconfig', kubeconfig, 'get', 'namespaces', '-o', 'name'], { GODEBUG: 'http2debug=1' });
  expect(got.code).toBe(0);
  expect(got.stdout).toContain('namespace/default');
  expect(got.stderr).toContain('Transport received SETTINGS');
  expect(got.stderr).toMatch(/MAX_CONCURRENT_STREAMS=150, INITIAL_WINDOW_SIZE=262144, MAX_FRAME_SIZE=262144, MAX_HEADER_LIST_SIZE=1048896/);
  expect(got.stderr).not.toMatch(/HTTP\/1\.1/);
});

test("identity is the connection's: the client certificate for every stream of its session, none on a session without one; HTTP/1.1 still served", async () => {
  const withCert = await http2Session(kapi.process.secureUrl, kapi.admin);
  const without = await http2Session(kapi.process.secureUrl, { ca: kapi.ca });
  try {
    expect(withCert.alpnProtocol).toBe('h2');
    const [admin, anonymous, token, version] = await Promise.all([
      http2Request(withCert, selfSubjectReviews, { method: 'POST', body: whoami }),
      http2Request(without, ns),
      http2Request(without, selfSubjectReviews, { method: 'POST', body: whoami, headers: { authorization: `Bearer ${TOKEN}` } }),
      http2Request(without, '/version'),
    ]);
    expect(admin.status).toBe(201);
    expect(admin.body.status.userInfo).toMatchObject({ username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] });
    expect(anonymous.status).toBe(403);
    expect(anonymous.body.message).toBe(
      'configmaps is forbidden: User "system:anonymous" cannot list resource "configmaps" in API group "" in the namespace "default"',
    );
    expect(token.body.status.userInfo).toMatchObject({ username: 'h2-user', uid: 'h2-uid', groups: ['h2-group', 'system:authenticated'] });
    expect(version.status).toBe(200);
    expect(version.body.major).toBe('1');
    // Go's HTTP/2 server shows no connection-specific fields.
    expect(version.headers).toMatchObject({ 'content-type': 'application/json', 'cache-control': 'no-cache, private' });
  } finally {
    withCert.close();
    without.close();
  }
  const http1 = await new Promise<{ version: string; status: number }>((resolve, reject) => {
    const req = httpsRequest(`${kapi.process.secureUrl}/version`, { ...kapi.admin, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ version: res.httpVersion, status: res.statusCode ?? 0 }));
    });
    req.on('error', reject);
    req.end();
  });
  expect(http1).toEqual({ version: '1.1', status: 200 });
});

/** A watch on a stream of `session`: its events as they come, and a wait (10 s at most) for an event about `name`. */
function watchEvents(
  session: ClientHttp2Session,
  target: string,
): { events: { type: string; object: any }[]; seen(name: string): Promise<void>; close(): void } {
  const stream = session.request({ ':path': target, accept: 'application/json' });
  const events: { type: string; object: any }[] = [];
  let buffer = '';
  const waiters: (() => void)[] = [];
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    buffer += chunk;
    let at: number;
    while ((at = buffer.indexOf('\n')) >= 0) {
      events.push(JSON.parse(buffer.slice(0, at)));
      buffer = buffer.slice(at + 1);
    }
    for (const wake of waiters.splice(0)) wake();
  });
  stream.on('error', () => undefined);
  const seen = async (name: string): Promise<void> => {
    const deadline = Date.now() + 10_000;
    while (!events.some((e) => e.object?.metadata?.name === name)) {
      if (Date.now() > deadline) throw new Error(`no event for ${name}: ${JSON.stringify(events.map((e) => [e.type, e.object?.metadata?.name]))}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  };
  return { events, seen, close: () => stream.close() };
}

test("a watch and 300 concurrent requests share one session; a 413 ends its stream only, as Go's HTTP/2 server", async () => {
  const session = await http2Session(kapi.process.secureUrl, kapi.admin);
  let goaway = false;
  session.on('goaway', () => (goaway = true));
  try {
    const list = await http2Request(session, ns);
    const watch = watchEvents(session, `${ns}?watch=true&resourceVersion=${list.body.metadata.resourceVersion}`);
    expect((await http2Request(session, ns, { method: 'POST', body: configMap('h2-first') })).status).toBe(201);
    await watch.seen('h2-first');

    // Twice the advertised stream limit at once: the client queues what the server's SETTINGS hold back.
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        i % 3 === 0 ? http2Request(session, ns, { method: 'POST', body: configMap(`h2-many-${i}`) }) : http2Request(session, `${ns}?limit=5`),
      ),
    );
    process.stdout.write(`300 requests on one HTTP/2 session: ${Date.now() - started} ms\n`);
    expect(answers.filter((a) => a.status === 201)).toHaveLength(100);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(200);
    // The creates finish in any order, so the last name asked for need not be the last revision written.
    for (let i = 0; i < 300; i += 3) await watch.seen(`h2-many-${i}`);
    expect(watch.events.filter((e) => e.type === 'ADDED' && e.object.metadata.name.startsWith('h2-many-'))).toHaveLength(100);

    // A body past kube's 3 MiB: 413 on its stream; the session serves on (HTTP/1.1 would close).
    const tooLarge = await http2Request(session, ns, { method: 'POST', body: { ...configMap('h2-large'), data: { a: 'x'.repeat(3 * 1024 * 1024) } } });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.reason).toBe('RequestEntityTooLarge');
    expect((await http2Request(session, ns, { method: 'POST', body: configMap('h2-after-413') })).status).toBe(201);
    await watch.seen('h2-after-413');
    expect(goaway).toBe(false);
    watch.close();
  } finally {
    session.close();
  }
}, 60_000);

test('--goaway-chance: an HTTP/2 request now and then is answered whole and its session sent a GOAWAY; HTTP/1.1 requests never get Connection: close', async () => {
  let sessions = 0;
  let served = 0;
  let goaways = 0;
  // 0.98^1000 of never seeing one: the loop ends at the first, or fails.
  while (goaways === 0 && served < 1000) {
    const session = await http2Session(chancy.process.secureUrl, chancy.admin);
    sessions++;
    const goaway = new Promise<number>((resolve) => session.once('goaway', (code: number) => resolve(code)));
    try {
      while (!session.closed && served < 1000) {
        const answer = await http2Request(session, '/version');
        expect(answer.status).toBe(200);
        expect(answer.headers.connection).toBeUndefined();
        served++;
        // The GOAWAY follows its request's answer on the connection.
        if (await Promise.race([goaway.then((code) => code === 0), new Promise<false>((r) => setImmediate(() => r(false)))])) goaways++;
      }
    } finally {
      session.close();
    }
  }
  process.stdout.write(`--goaway-chance=0.02: first GOAWAY after ${served} HTTP/2 requests\n`);
  expect(goaways).toBe(1);
  expect(sessions).toBe(1);

  const agent = new Agent({ keepAlive: true, maxSockets: 1, ...chancy.admin });
  try {
    for (let i = 0; i < 300; i++) {
      const headers = await new Promise<Record<string, unknown>>((resolve, reject) => {
        const req = httpsRequest(`${chancy.process.secureUrl}/version`, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.headers));
        });
        req.on('error', reject);
        req.end();
      });
      expect(headers.connection).toBe('keep-alive');
    }
  } finally {
    agent.destroy();
  }
}, 60_000);

test('a graceful shutdown sends every HTTP/2 session a GOAWAY and ends their watches cleanly', async () => {
  const session = await http2Session(chancy.process.secureUrl, chancy.admin);
  const idle = await http2Session(chancy.process.secureUrl, { ca: chancy.ca });
  const goaways = [session, idle].map((s) => new Promise<number>((resolve) => s.once('goaway', (code: number) => resolve(code))));
  const watch = session.request({ ':path': `${ns}?watch=true`, accept: 'application/json' });
  watch.resume();
  const ended = new Promise<string>((resolve) => {
    watch.once('end', () => resolve('end'));
    watch.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
  });
  await new Promise((resolve) => watch.once('response', resolve));
  const stopped = chancy.process.stop();
  expect(await Promise.all(goaways)).toEqual([0, 0]);
  expect(await ended).toBe('end');
  expect(await stopped).toBe(0);
}, 60_000);
