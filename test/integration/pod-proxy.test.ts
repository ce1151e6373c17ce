import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, request, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createCertificateAuthority, createLeafCertificate } from '../../src/auth/certificates';
import { startFakeKubelet, type FakeKubelet } from '../harness/fake-kubelet';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

/**
 * The connect subresources (pods/log, exec, attach, portforward, proxy; nodes/proxy;
 * services/proxy) through a fake kubelet and backends on 127.0.0.1, as kube-apiserver serves them.
 */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
let kubelet: FakeKubelet;
let backend: Server;
let seen: { method: string; url: string; authorization?: string; forwardedFor?: string }[] = [];
let dir: string;
const NS = '/api/v1/namespaces/default';

const LOGS = { 'default/web/app': ['one', 'two', 'three'], 'default/multi/b': ['from b'] };

beforeAll(async () => {
  // kapi's kubelet client certificate, of a CA the fake kubelet trusts.
  const clientCa = createCertificateAuthority('kubelet-client-ca');
  const client = createLeafCertificate(clientCa, {
    commonName: 'kube-apiserver-kubelet-client',
    organizations: ['kubeadm:cluster-admins'],
    usage: 'client',
    validDays: 1,
  });
  kubelet = await startFakeKubelet({ logs: LOGS, clientCa: clientCa.cert });
  dir = mkdtempSync(path.join(tmpdir(), 'kapi-kubelet-'));
  const file = (name: string, text: string): string => {
    writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };
  server = await startTestServer({
    kubeletClientCertificate: file('client.crt', client.cert),
    kubeletClientKey: file('client.key', client.key),
    kubeletCertificateAuthority: file('kubelet-ca.crt', kubelet.ca),
    kubeletPreferredAddressTypes: ['InternalIP'],
  });
  api = new Api(server.url);
  backend = createHttpServer((req, res) => {
    seen.push({
      method: req.method ?? '',
      url: req.url ?? '',
      authorization: req.headers.authorization,
      forwardedFor: req.headers['x-forwarded-for'] as string | undefined,
    });
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'text/plain', 'X-Backend': 'yes' });
      res.end(`backend ${req.method} ${req.url} ${body}`);
    });
  });
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  await node(
    'n1',
    [
      { type: 'Hostname', address: 'n1.invalid' },
      { type: 'InternalIP', address: '127.0.0.1' },
    ],
    kubelet.port,
  );
  await node('bare', [], 10250);
  await pod('web', { nodeName: 'n1', containers: [{ name: 'app', image: 'nginx' }] });
  await pod('multi', {
    nodeName: 'n1',
    containers: [
      { name: 'a', image: 'nginx' },
      { name: 'b', image: 'nginx' },
    ],
  });
  await pod('pending', { containers: [{ name: 'app', image: 'nginx' }] });
  await pod('stranded', { nodeName: 'bare', containers: [{ name: 'app', image: 'nginx' }] });
});

afterAll(async () => {
  await server?.close();
  await kubelet?.close();
  backend?.closeAllConnections();
  await new Promise((resolve) => backend?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  seen = [];
});

async function node(name: string, addresses: { type: string; address: string }[], port: number): Promise<void> {
  const res = await api.post('/api/v1/nodes', {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name },
    status: { addresses, daemonEndpoints: { kubeletEndpoint: { Port: port } } },
  });
  expect(res.status).toBe(201);
}

async function pod(name: string, spec: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await api.post(`${NS}/pods`, { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec });
  expect(res.status).toBe(201);
  return res.body;
}

const port = (s: Server): number => (s.address() as AddressInfo).port;

describe('discovery', () => {
  test('/api/v1 lists the connect subresources with kube-apiserver kinds and verbs', async () => {
    const { body } = await api.get('/api/v1');
    const byName = new Map<string, any>(body.resources.map((r: any) => [r.name, r]));
    const proxyVerbs = ['create', 'delete', 'get', 'patch', 'update'];
    expect(byName.get('pods/log')).toEqual({ name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] });
    expect(byName.get('pods/exec')).toEqual({ name: 'pods/exec', singularName: '', namespaced: true, kind: 'PodExecOptions', verbs: ['create', 'get'] });
    expect(byName.get('pods/attach')).toMatchObject({ kind: 'PodAttachOptions', verbs: ['create', 'get'] });
    expect(byName.get('pods/portforward')).toMatchObject({ kind: 'PodPortForwardOptions', verbs: ['create', 'get'] });
    expect(byName.get('pods/proxy')).toMatchObject({ kind: 'PodProxyOptions', verbs: proxyVerbs });
    expect(byName.get('nodes/proxy')).toMatchObject({ namespaced: false, kind: 'NodeProxyOptions', verbs: proxyVerbs });
    expect(byName.get('services/proxy')).toMatchObject({ kind: 'ServiceProxyOptions', verbs: proxyVerbs });
  });

  test('aggregated discovery names the options kinds as response kinds', async () => {
    const { body } = await api.get('/api', { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
    const pods = body.items[0].versions[0].resources.find((r: any) => r.resource === 'pods');
    const exec = pods.subresources.find((s: any) => s.subresource === 'exec');
    expect(exec).toEqual({ subresource: 'exec', responseKind: { group: '', version: 'v1', kind: 'PodExecOptions' }, verbs: ['create', 'get'] });
  });
});

describe('pods/log', () => {
  test('streams the container log from the kubelet, with kapi client certificate and the options the kubelet takes', async () => {
    const res = await api.get(`${NS}/pods/web/log?tailLines=2&timestamps=true`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(res.text).toBe('2026-01-01T00:00:00.000000000Z two\n2026-01-01T00:00:00.000000000Z three\n');
    const asked = kubelet.requests.at(-1)!;
    expect(asked.url).toBe('/containerLogs/default/web/app?tailLines=2&timestamps=true');
    expect(asked.clientName).toBe('kube-apiserver-kubelet-client');
  });

  test('a named container of a pod with several; none named is kube 400 listing them', async () => {
    expect((await api.get(`${NS}/pods/multi/log?container=b`)).text).toBe('from b\n');
    const res = await api.get(`${NS}/pods/multi/log`);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('a container name must be specified for pod multi, choose one of: [a b]');
  });

  test('a container not in the pod is kube 400', async () => {
    const res = await api.get(`${NS}/pods/web/log?container=nope`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'BadRequest', message: 'container nope is not valid for pod web', code: 400 });
  });

  test('invalid options are a 422 PodLogOptions; malformed numbers a 400', async () => {
    const tail = await api.get(`${NS}/pods/web/log?tailLines=-1`);
    expect(tail.status).toBe(422);
    expect(tail.body.message).toBe('PodLogOptions "web" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0');
    const both = await api.get(`${NS}/pods/web/log?sinceSeconds=5&sinceTime=2026-01-01T00:00:00Z`);
    expect(both.status).toBe(422);
    expect(both.body.message).toContain('at most one of `sinceTime` or `sinceSeconds` may be specified');
    const limit = await api.get(`${NS}/pods/web/log?limitBytes=0`);
    expect(limit.body.message).toBe('PodLogOptions "web" is invalid: limitBytes: Invalid value: 0: must be greater than 0');
    const malformed = await api.get(`${NS}/pods/web/log?tailLines=ten`);
    expect(malformed.status).toBe(400);
  });

  test('a pod not on a node has nothing to show: 204 No Content, as kube', async () => {
    const res = await api.get(`${NS}/pods/pending/log`);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
  });

  test('requests are counted with the verb CONNECT, as kube metrics.CleanVerb reports them', async () => {
    const metrics = (await api.get('/metrics')).text;
    expect(metrics).toMatch(/apiserver_request_total\{[^}]*verb="CONNECT"[^}]*resource="pods"[^}]*subresource="log"[^}]*\} \d+/);
  });

  test('a node without a usable address is kube 500 naming the known addresses', async () => {
    const res = await api.get(`${NS}/pods/stranded/log`);
    expect(res.status).toBe(500);
    expect(res.body.message).toBe('no preferred addresses found; known addresses: []');
  });

  test("the kubelet's refusal comes back as a Status of its code", async () => {
    await pod('ghost', { nodeName: 'n1', containers: [{ name: 'app', image: 'nginx' }] });
    const res = await api.get(`${NS}/pods/ghost/log`);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      reason: 'NotFound',
      message: 'the server could not find the requested resource ( pods/log ghost)',
      details: { name: 'ghost', kind: 'pods/log' },
    });
  });

  test('a kubelet whose certificate is not of --kubelet-certificate-authority is refused, unless insecureSkipTLSVerifyBackend', async () => {
    const stranger = await startFakeKubelet({ logs: { 'default/elsewhere/app': ['unverified'] } });
    try {
      await node('n2', [{ type: 'InternalIP', address: '127.0.0.1' }], stranger.port);
      await pod('elsewhere', { nodeName: 'n2', containers: [{ name: 'app', image: 'nginx' }] });
      const refused = await api.get(`${NS}/pods/elsewhere/log`);
      expect(refused.status).toBe(500);
      expect(refused.body.message).toMatch(/^error dialing backend: .*certificate/);
      expect(stranger.requests).toEqual([]);
      const skipped = await api.get(`${NS}/pods/elsewhere/log?insecureSkipTLSVerifyBackend=true`);
      expect(skipped.text).toBe('unverified\n');
    } finally {
      await stranger.close();
    }
  });

  test('follow streams until the client goes, then the kubelet stream closes too', async () => {
    const url = new URL(`${server.url}${NS}/pods/web/log?follow=true`);
    const received = await new Promise<string>((resolve, reject) => {
      const req = request(url, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          if (text.includes('follow 2\n')) {
            req.destroy();
            resolve(text);
          }
        });
      });
      req.on('error', (err) => (err.message.includes('aborted') || err.message.includes('socket hang up') ? undefined : reject(err)));
      req.end();
    });
    expect(received).toBe('one\ntwo\nthree\nfollow 1\nfollow 2\n');
    for (let i = 0; i < 50 && kubelet.openFollows() > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(kubelet.openFollows()).toBe(0);
  });
});

/** A WebSocket handshake through kapi's plain port; the answer's head and the bytes that follow, until the server closes. */
function websocket(target: string, protocols = 'v5.channel.k8s.io, v4.channel.k8s.io'): Promise<{ head: string; frames: Buffer }> {
  const { port: p } = new URL(server.url);
  const key = randomBytes(16).toString('base64');
  return new Promise((resolve, reject) => {
    const socket = connect(Number(p), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      resolve({ head: all.subarray(0, end).toString('latin1'), frames: all.subarray(end + 4) });
    });
    socket.write(
      `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Protocol: ${protocols}\r\n\r\n`,
    );
  });
}

/** The payloads of unmasked server frames. */
function payloads(frames: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at + 2 <= frames.length;) {
    let length = frames[at + 1] & 0x7f;
    let start = at + 2;
    if (length === 126) {
      length = frames.readUInt16BE(at + 2);
      start += 2;
    }
    out.push(frames.subarray(start, start + length));
    at = start + length;
  }
  return out;
}

describe('pods/exec, attach, portforward', () => {
  test('exec is tunnelled to the kubelet: its WebSocket answer and stream reach the client unchanged', async () => {
    const { head, frames } = await websocket(`${NS}/pods/web/exec?command=echo&command=hi&stdout=true&stderr=true`);
    expect(head).toMatch(/^HTTP\/1\.1 101 /);
    expect(head).toContain('Sec-WebSocket-Protocol: v5.channel.k8s.io');
    const [stdout, status] = payloads(frames);
    expect(stdout.toString()).toBe('\x01hi\n');
    expect(JSON.parse(status.subarray(1).toString())).toEqual({ metadata: {}, status: 'Success' });
    expect(kubelet.requests.at(-1)).toMatchObject({
      url: '/exec/default/web/app?command=echo&command=hi&error=1&output=1',
      upgrade: 'websocket',
      clientName: 'kube-apiserver-kubelet-client',
    });
  });

  test('attach in the v4 protocol', async () => {
    const { head, frames } = await websocket(`${NS}/pods/web/attach?stdout=1`, 'v4.channel.k8s.io');
    expect(head).toContain('Sec-WebSocket-Protocol: v4.channel.k8s.io');
    expect(payloads(frames)[0].toString()).toBe('\x01attached\n');
  });

  test('portforward reaches the kubelet port forwarding with the ports asked for', async () => {
    const { head, frames } = await websocket(`${NS}/pods/web/portforward?ports=8080`, 'portforward.k8s.io');
    expect(head).toContain('Sec-WebSocket-Protocol: portforward.k8s.io');
    const [data, error, answer] = payloads(frames);
    expect([...data]).toEqual([0, 0x90, 0x1f]);
    expect([...error]).toEqual([1, 0x90, 0x1f]);
    expect(answer.toString()).toBe('\x00pong 8080\n');
    expect(kubelet.requests.at(-1)).toMatchObject({ url: '/portForward/default/web?port=8080', upgrade: 'websocket' });
  });

  test('a kubelet that cannot be reached: the upgrade is answered with a 500 Status', async () => {
    await node('unreachable', [{ type: 'InternalIP', address: '127.0.0.1' }], 1);
    await pod('cut-off', { nodeName: 'unreachable', containers: [{ name: 'app', image: 'nginx' }] });
    const { head, frames } = await websocket(`${NS}/pods/cut-off/exec?command=ls&stdout=1`);
    expect(head).toMatch(/^HTTP\/1\.1 500 /);
    expect(JSON.parse(frames.toString())).toMatchObject({
      kind: 'Status',
      code: 500,
      message: expect.stringMatching(/^error dialing backend: connect ECONNREFUSED 127\.0\.0\.1:1$/),
    });
  });

  // A POST without a body still names a type: the insecure port refuses one without (insecure-port-guard.ts).
  const typed = { headers: { 'Content-Type': 'application/json' } };

  test('without an upgrade: kube 400 "Upgrade request required"', async () => {
    for (const sub of ['exec?command=ls', 'attach', 'portforward?ports=80']) {
      const res = await api.post(`${NS}/pods/web/${sub}`, undefined, typed);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('Upgrade request required');
    }
  });

  test('a pod not on a node is kube 400 "does not have a host assigned"', async () => {
    const { head } = await websocket(`${NS}/pods/pending/exec?command=ls&stdout=1`);
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    const res = await api.post(`${NS}/pods/pending/exec?command=ls`, undefined, typed);
    expect(res.body).toMatchObject({ reason: 'BadRequest', message: 'pod pending does not have a host assigned' });
  });

  test('a container not in the pod is kube 400; other methods 405', async () => {
    const res = await api.post(`${NS}/pods/web/exec?container=nope&command=ls`, undefined, typed);
    expect(res.body.message).toBe('container nope is not valid for pod web');
    expect((await api.put(`${NS}/pods/web/exec`, {})).status).toBe(405);
    expect((await api.post(`${NS}/pods/web/log`, {})).status).toBe(405);
  });

  test('RBAC asks for the subresource with the verb of the method', async () => {
    const role = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'logs' },
      rules: [{ apiGroups: [''], resources: ['pods/log'], verbs: ['get'] }],
    };
    expect((await api.post('/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles', role)).status).toBe(201);
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'logs' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'logs' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'alice' }],
    };
    expect((await api.post('/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', binding)).status).toBe(201);
    const as = { headers: { 'Impersonate-User': 'alice' } };
    let logs = await api.get(`${NS}/pods/web/log`, as);
    for (let i = 0; i < 20 && logs.status === 403; i++) {
      await new Promise((r) => setTimeout(r, 100));
      logs = await api.get(`${NS}/pods/web/log`, as);
    }
    expect(logs.status).toBe(200);
    const exec = await api.post(`${NS}/pods/web/exec?command=ls`, undefined, { headers: { ...as.headers, ...typed.headers } });
    expect(exec.status).toBe(403);
    expect(exec.body.message).toBe('pods "web" is forbidden: User "alice" cannot create resource "pods/exec" in API group "" in the namespace "default"');
  });
});

describe('nodes/proxy', () => {
  test("reaches the node's kubelet at the path after proxy, query included", async () => {
    const res = await api.get('/api/v1/nodes/n1/proxy/stats/summary?only=cpu');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ method: 'GET', path: '/stats/summary', query: '?only=cpu' });
    expect(kubelet.requests.at(-1)!.clientName).toBe('kube-apiserver-kubelet-client');
  });

  test('the root without its slash is redirected, as kube', async () => {
    const res = await fetch(`${server.url}/api/v1/nodes/n1/proxy?x=1`, { redirect: 'manual' });
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe('/api/v1/nodes/n1/proxy/?x=1');
  });

  test('an unknown node is a 404', async () => {
    const res = await api.get('/api/v1/nodes/nowhere/proxy/');
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('nodes "nowhere" not found');
  });
});

describe('services/proxy and pods/proxy', () => {
  beforeAll(async () => {
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }] } };
    expect((await api.post(`${NS}/services`, svc)).status).toBe(201);
    const endpoints = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'web' },
      subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'http', port: port(backend) }] }],
    };
    expect((await api.post(`${NS}/endpoints`, endpoints)).status).toBe(201);
  });

  test('name:port goes to an address of the endpoints with the path and query; the caller credentials stay behind', async () => {
    const res = await api.request('POST', `${NS}/services/web:80/proxy/hello/world?q=1`, {
      raw: 'payload',
      // Not text/plain: the insecure port refuses a type a web page could send (insecure-port-guard.ts).
      contentType: 'application/octet-stream',
      headers: { Authorization: 'Bearer secret' },
    });
    expect(res.status).toBe(200);
    expect(res.text).toBe('backend POST /hello/world?q=1 payload');
    expect(res.headers.get('x-backend')).toBe('yes');
    expect(seen).toEqual([{ method: 'POST', url: '/hello/world?q=1', authorization: undefined, forwardedFor: '127.0.0.1' }]);
    expect((await api.get(`${NS}/services/web:http/proxy/`)).text).toBe('backend GET / ');
  });

  test('a service port that is not declared, or no endpoints: kube 503s', async () => {
    const res = await api.get(`${NS}/services/web:81/proxy/`);
    expect(res.status).toBe(503);
    expect(res.body.message).toBe('no service port 81 found for service "web"');
    const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'empty' }, spec: { ports: [{ port: 80 }] } };
    expect((await api.post(`${NS}/services`, svc)).status).toBe(201);
    const none = await api.get(`${NS}/services/empty/proxy/`);
    expect(none.status).toBe(503);
    expect(none.body.reason).toBe('ServiceUnavailable');
  });

  test('https:name:port to an HTTPS backend found through EndpointSlices', async () => {
    const ca = createCertificateAuthority('backend-ca');
    const leaf = createLeafCertificate(ca, { commonName: 'secure', usage: 'server', hosts: ['127.0.0.1'], validDays: 1 });
    const secure = createHttpsServer({ cert: leaf.cert, key: leaf.key }, (req, res) => res.end(`secure ${req.url}`));
    await new Promise<void>((resolve) => secure.listen(0, '127.0.0.1', resolve));
    try {
      const svc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'secure' }, spec: { ports: [{ name: 'https', port: 443 }] } };
      expect((await api.post(`${NS}/services`, svc)).status).toBe(201);
      const slice = {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name: 'secure-1', labels: { 'kubernetes.io/service-name': 'secure' } },
        addressType: 'IPv4',
        endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
        ports: [{ name: 'https', port: port(secure), protocol: 'TCP' }],
      };
      expect((await api.post('/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', slice)).status).toBe(201);
      const res = await api.get(`${NS}/services/https:secure:443/proxy/x`);
      expect(res.text).toBe('secure /x');
    } finally {
      secure.closeAllConnections();
      await new Promise((resolve) => secure.close(resolve));
    }
  });

  test("pods/proxy goes to the pod's IP on the port asked for", async () => {
    const created = await pod('served', { containers: [{ name: 'app', image: 'nginx', ports: [{ containerPort: port(backend) }] }] });
    created.status = { phase: 'Running', podIP: '127.0.0.1', podIPs: [{ ip: '127.0.0.1' }] };
    expect((await api.put(`${NS}/pods/served/status`, created)).status).toBe(200);
    expect((await api.get(`${NS}/pods/served/proxy/a?b=c`)).text).toBe('backend GET /a?b=c ');
    expect((await api.get(`${NS}/pods/served:${port(backend)}/proxy/z`)).text).toBe('backend GET /z ');
    const bad = await api.get(`${NS}/pods/a:b:c:d/proxy/`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('invalid pod request "a:b:c:d"');
  });
});

describe('shutdown', () => {
  test('a closing server ends its open tunnels and followed logs, on both sides', async () => {
    const own = await startTestServer({
      kubeletClientCertificate: path.join(dir, 'client.crt'),
      kubeletClientKey: path.join(dir, 'client.key'),
      kubeletPreferredAddressTypes: ['InternalIP'],
    });
    const ownApi = new Api(own.url);
    const created = [
      await ownApi.post('/api/v1/nodes', {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'n1' },
        status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: kubelet.port } } },
      }),
      await ownApi.post(`${NS}/pods`, {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'web' },
        spec: { nodeName: 'n1', containers: [{ name: 'app', image: 'nginx' }] },
      }),
    ];
    expect(created.map((r) => r.status)).toEqual([201, 201]);
    const attached = connect(Number(new URL(own.url).port), '127.0.0.1');
    const attachClosed = new Promise<void>((resolve) => attached.on('close', () => resolve()));
    attached.on('error', () => undefined);
    const firstBytes = new Promise<string>((resolve) => attached.once('data', (c: Buffer) => resolve(c.toString('latin1'))));
    attached.write(
      `GET ${NS}/pods/web/attach?stdin=true&stdout=true HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Protocol: v5.channel.k8s.io\r\n\r\n`,
    );
    expect(await firstBytes).toMatch(/^HTTP\/1\.1 101 /);
    const follow = await fetch(`${own.url}${NS}/pods/web/log?follow=true`);
    const reader = follow.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('one');
    const started = Date.now();
    await own.close();
    expect(Date.now() - started).toBeLessThan(10_000);
    await attachClosed;
    for (let i = 0; i < 50 && (kubelet.openStreams() > 0 || kubelet.openFollows() > 0); i++) await new Promise((r) => setTimeout(r, 100));
    expect([kubelet.openStreams(), kubelet.openFollows()]).toEqual([0, 0]);
    // The followed log ended cleanly: the reader reaches its end.
    let done = false;
    while (!done) done = (await reader.read()).done;
  });
});
