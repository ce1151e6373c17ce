import { readdirSync, readFileSync, readlinkSync, statSync, mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import yaml from 'js-yaml';
import { parseFlags, type Config } from '../../src/server/config';
import { RawEtcd, eventually } from '../harness/etcd-keys';
import { startServerProcess, type ServerProcess } from '../harness/process';
import { startSecureKapi, type SecureKapi } from '../harness/secure-process';

// Exposure: what the shipped deploy files open, which ports a process listens on, who may read its
// key files, what a web page can make a browser do to the plain-HTTP admin port, whether custom
// resources are encrypted in etcd, and whether credentials and secret data reach logs.

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** Flags as kapi itself reads them: an unknown flag fails here too. */
function config(args: string[]): Config {
  const parsed = parseFlags(args);
  if (parsed === 'help') throw new Error('help');
  return parsed;
}

/** YAML merge keys (`<<: *anchor`) resolved, as compose resolves them (js-yaml keeps them as keys). */
function merged(value: unknown): any {
  if (Array.isArray(value)) return value.map(merged);
  if (typeof value !== 'object' || value === null) return value;
  const { '<<': base, ...own } = value as Record<string, unknown>;
  const bases = base === undefined ? [] : Array.isArray(base) ? base : [base];
  return Object.assign({}, ...bases.map(merged), Object.fromEntries(Object.entries(own).map(([k, v]) => [k, merged(v)])));
}

interface ComposeService {
  image?: string;
  command?: string[];
  ports?: string[];
  healthcheck?: { test: string[] };
}

describe('deploy files', () => {
  test('the image exposes the TLS port only, and its default command opens no plain-HTTP port', () => {
    const dockerfile = read('deploy/Dockerfile');
    expect([...dockerfile.matchAll(/^EXPOSE\s+(.+)$/gm)].map((m) => m[1].trim())).toEqual(['6443']);
    const cmd = JSON.parse(/^CMD\s+(\[.*\])$/m.exec(dockerfile)![1]) as string[];
    expect(config(cmd).insecurePort).toBeNull();
    expect(dockerfile).not.toMatch(/insecure-(port|bind-address)/);
    expect(/^ENV KAPI_HEALTH_URL=(\S+)$/m.exec(dockerfile)![1]).toBe('https://127.0.0.1:6443/readyz');
  });

  test.each(['docker-compose.yml', 'docker-compose.ha.yml'])('%s: kapi runs without the plain-HTTP port, and every published port is on 127.0.0.1', (file) => {
    const services = (merged(yaml.load(read(file))) as { services: Record<string, ComposeService> }).services;
    const kapis = Object.entries(services).filter(([, s]) => s.image === 'kapi:local' && s.command);
    expect(kapis.map(([name]) => name)).toEqual(file === 'docker-compose.yml' ? ['kapi'] : ['kapi-1', 'kapi-2']);
    for (const [name, service] of kapis) {
      expect([name, config(service.command!).insecurePort]).toEqual([name, null]);
      expect(JSON.stringify(service.healthcheck)).not.toContain('http://');
    }
    for (const [name, service] of Object.entries(services)) {
      for (const port of service.ports ?? []) expect([name, port]).toEqual([name, expect.stringMatching(/^127\.0\.0\.1:\d+:\d+$/)]);
      expect([name, (service.ports ?? []).some((p) => p.endsWith(':8080'))]).toEqual([name, false]);
    }
  });

  test('the HA load balancer passes TLS through to the replicas, and Prometheus scrapes them over HTTPS with a token', () => {
    const haproxy = read('deploy/compose/haproxy.cfg');
    expect(haproxy).toMatch(/^\s*mode tcp$/m);
    expect([...haproxy.matchAll(/^\s*bind\s+(\S+)/gm)].map((m) => m[1])).toEqual([':6443']);
    expect([...haproxy.matchAll(/^\s*server\s+\S+\s+(\S+)/gm)].map((m) => m[1])).toEqual(['kapi-1:6443', 'kapi-2:6443']);
    const prometheus = yaml.load(read('deploy/compose/prometheus.yml')) as { scrape_configs: Record<string, any>[] };
    for (const job of prometheus.scrape_configs) {
      expect(job.scheme).toBe('https');
      expect(job.authorization.credentials_file).toBeDefined();
    }
  });

  test('the Kubernetes Deployment and the systemd unit pass no plain-HTTP port', () => {
    const deployment = yaml.load(read('deploy/kubernetes/deployment.yaml')) as any;
    const [container] = deployment.spec.template.spec.containers;
    expect(config(container.args).insecurePort).toBeNull();
    expect(container.ports).toEqual([{ name: 'https', containerPort: 6443 }]);
    expect(JSON.stringify(container.env ?? [])).not.toContain('8080');
    const env = read('deploy/systemd/kapi.env');
    const args = /^KAPI_ARGS="(.*)"$/m.exec(env)![1].split(' ');
    expect(config(args).insecurePort).toBeNull();
  });
});

/** The TCP ports a process listens on, from its socket inodes in /proc. */
function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]);
    } catch {
      // closed meanwhile
    }
  }
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // local_address is cols[1] (addr:port in hex), st is cols[3] (0A = LISTEN), inode is cols[9].
      if (cols.length > 9 && cols[3] === '0A' && inodes.has(cols[9])) ports.push(Number.parseInt(cols[1].split(':').pop()!, 16));
    }
  }
  return ports.sort((a, b) => a - b);
}

describe('ports and key files', () => {
  let kapi: ServerProcess;
  beforeAll(async () => {
    kapi = await startServerProcess(['--insecure-port=0'], { insecure: false });
  });
  afterAll(() => kapi?.stop());

  test('--insecure-port=0 opens no plain-HTTP listener (0 is off, as in kube-apiserver): the TLS port is the only one', () => {
    expect(kapi.output()).not.toContain('serving insecurely');
    expect(listeningPorts(kapi.child.pid!)).toEqual([Number(new URL(kapi.secureUrl).port)]);
  });

  test('key files under the cert dir, and the admin kubeconfig, are readable by the owner only', () => {
    const pki = path.join(kapi.dataDir, 'pki');
    const mode = (file: string) => (statSync(file).mode & 0o777).toString(8);
    expect(mode(kapi.dataDir)).toBe('700');
    expect(mode(pki)).toBe('700');
    const keys = readdirSync(pki).filter((f) => f.endsWith('.key'));
    expect(keys.sort()).toEqual(['apiserver.key', 'ca.key', 'front-proxy-ca.key', 'front-proxy-client.key', 'sa.key']);
    for (const key of keys) expect([key, mode(path.join(pki, key))]).toEqual([key, '600']);
    expect(mode(path.join(kapi.dataDir, 'admin.kubeconfig'))).toBe('600');
  });
});

/** One plain-HTTP request with exactly these headers (no Host or Content-Type added unless given). */
function plain(port: number, method: string, p: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path: p, headers, agent: false, setHost: false }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe("the plain-HTTP admin port's defence against web pages", () => {
  let port: number;
  let stop: () => Promise<unknown>;
  const CM = '/api/v1/namespaces/default/configmaps';
  const status = (code: number, reason: string, message: string) => ({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    code,
  });
  const UNSUPPORTED = status(
    415,
    'UnsupportedMediaType',
    'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
  );
  const cm = (name: string) => JSON.stringify({ metadata: { name }, data: { planted: 'by a web page' } });

  beforeAll(async () => {
    const kapi = await startServerProcess();
    port = kapi.port;
    stop = () => kapi.stop();
  });
  afterAll(() => stop?.());

  test('a write with a Content-Type a page may send without a preflight is a 415 and changes nothing; one without a type is JSON, as kubectl sends it', async () => {
    const local = { Host: `127.0.0.1:${port}` };
    for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      expect([type, (await plain(port, 'POST', CM, { ...local, 'Content-Type': type }, cm('simple'))).body]).toEqual([type, UNSUPPORTED]);
    }
    expect((await plain(port, 'PUT', `${CM}/simple`, { ...local, 'Content-Type': 'text/plain' }, cm('simple'))).body).toEqual(UNSUPPORTED);
    // A simple type with parameters Go's mime parser refuses is still one to a browser: the guard refuses it on a proxy
    // path too, where no body negotiation would.
    for (const type of ['text/plain; foo', 'text/plain; charset=utf-8; x']) {
      const proxied = await plain(port, 'POST', '/api/v1/namespaces/default/services/kubernetes/proxy/', { ...local, 'Content-Type': type }, 'x');
      expect([type, proxied.body]).toEqual([type, UNSUPPORTED]);
    }
    expect((await plain(port, 'GET', `${CM}/simple`, local)).status).toBe(404);
    // A page's cross-origin write with no type carries its Origin, and is refused for that.
    expect((await plain(port, 'POST', CM, { ...local, Origin: 'https://attacker.example' }, cm('no-type'))).status).toBe(403);
    expect((await plain(port, 'POST', CM, local, cm('no-type'))).status).toBe(201);
    // kubectl, client-go and curl -H 'Content-Type: application/json' still write.
    expect((await plain(port, 'POST', CM, { ...local, 'Content-Type': 'application/json' }, cm('typed'))).status).toBe(201);
    expect((await plain(port, 'DELETE', `${CM}/typed`, local)).status).toBe(200);
  });

  test('a Host that is a DNS name other than localhost (DNS rebinding) is a 403, for reads too', async () => {
    const rebound = `attacker.example:${port}`;
    for (const [method, p] of [
      ['GET', '/api/v1/namespaces/kube-system/secrets'],
      ['GET', '/version'],
    ]) {
      expect((await plain(port, method, p, { Host: rebound })).body).toEqual(
        status(403, 'Forbidden', `the insecure port serves only requests addressed to localhost or an IP address, not to host "${rebound}"`),
      );
    }
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'localhost']) {
      expect([host, (await plain(port, 'GET', '/version', { Host: host })).status]).toEqual([host, 200]);
    }
  });

  test("a request from a web page of another origin is a 403; a loopback origin (the Python client's WebSocket) passes", async () => {
    const local = { Host: `127.0.0.1:${port}` };
    expect((await plain(port, 'GET', '/api/v1/namespaces/kube-system/secrets', { ...local, Origin: 'https://attacker.example' })).body).toEqual(
      status(403, 'Forbidden', 'the insecure port does not serve requests from web pages of origin "https://attacker.example"'),
    );
    expect((await plain(port, 'GET', '/version', { ...local, Origin: `http://127.0.0.1:${port}` })).status).toBe(200);
  });
});

describe('encryption at rest of custom resources', () => {
  const KEY = (n: number) => Buffer.alloc(32, n).toString('base64');
  const PLAIN = 'plaintext-marker-0b5e55ed';
  let kapi: SecureKapi;
  let etcd: RawEtcd;
  let dir: string;

  const crd = (group: string, plural: string, kind: string) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  });

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'kapi-enc-cr-'));
    const file = path.join(dir, 'encryption.yaml');
    // One rule of each form kube has, most specific first (kube refuses a rule masked by an earlier wildcard).
    writeFileSync(
      file,
      yaml.dump({
        apiVersion: 'apiserver.config.k8s.io/v1',
        kind: 'EncryptionConfiguration',
        resources: [
          { resources: ['widgets.example.com'], providers: [{ aescbc: { keys: [{ name: 'exact', secret: KEY(1) }] } }, { identity: {} }] },
          { resources: ['*.example.com'], providers: [{ aesgcm: { keys: [{ name: 'group', secret: KEY(2) }] } }, { identity: {} }] },
          { resources: ['*.*'], providers: [{ secretbox: { keys: [{ name: 'all', secret: KEY(3) }] } }, { identity: {} }] },
        ],
      }),
    );
    kapi = await startSecureKapi(['unused-token-3e1d,nobody,uid-nobody'], [`--encryption-provider-config=${file}`]);
    etcd = new RawEtcd();
    for (const [group, plural, kind] of [
      ['example.com', 'widgets', 'Widget'],
      ['example.com', 'gadgets', 'Gadget'],
      ['other.io', 'things', 'Thing'],
    ]) {
      expect((await kapi.asAdmin('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd(group, plural, kind))).status).toBe(201);
      await eventually(`${plural}.${group} served`, async () =>
        (await kapi.asAdmin('GET', `/apis/${group}/v1/namespaces/default/${plural}`)).status === 200 ? true : undefined,
      );
    }
  }, 60_000);

  afterAll(async () => {
    etcd?.close();
    await kapi?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test.each([
    ['example.com', 'widgets', 'Widget', 'k8s:enc:aescbc:v1:exact:'],
    ['example.com', 'gadgets', 'Gadget', 'k8s:enc:aesgcm:v1:group:'],
    ['other.io', 'things', 'Thing', 'k8s:enc:secretbox:v1:all:'],
  ])('a %s/%s object is ciphertext in etcd under its rule (%s → %s), and plaintext through kapi', async (group, plural, kind, prefix) => {
    const body = { apiVersion: `${group}/v1`, kind, metadata: { name: 'one' }, spec: { note: PLAIN } };
    expect((await kapi.asAdmin('POST', `/apis/${group}/v1/namespaces/default/${plural}`, body)).status).toBe(201);
    const stored = (await etcd.get(`${kapi.process.prefix}/${group}/${plural}/default/one`))!;
    expect(stored.subarray(0, prefix.length).toString()).toBe(prefix);
    expect(stored.includes(Buffer.from(PLAIN))).toBe(false);
    const read = await kapi.asAdmin('GET', `/apis/${group}/v1/namespaces/default/${plural}/one`);
    expect([read.status, read.body.spec]).toEqual([200, { note: PLAIN }]);
    const listed = await kapi.asAdmin('GET', `/apis/${group}/v1/${plural}`);
    expect(listed.body.items.map((i: any) => i.spec.note)).toEqual([PLAIN]);
  });

  test('the CRDs themselves, under *.*, are ciphertext too', async () => {
    const stored = (await etcd.get(`${kapi.process.prefix}/apiextensions.k8s.io/customresourcedefinitions/widgets.example.com`))!;
    expect(stored.subarray(0, 'k8s:enc:secretbox:v1:all:'.length).toString()).toBe('k8s:enc:secretbox:v1:all:');
  });
});

describe('credentials and secret data stay out of logs and audit lines', () => {
  test('at -v=10 with an audit log at Metadata, neither a bearer token nor a Secret value is written', async () => {
    const TOKEN = 'bearer-token-never-logged-71c3';
    const SECRET = 'secret-value-never-logged-9f2a';
    const dir = mkdtempSync(path.join(tmpdir(), 'kapi-leak-'));
    const auditLog = path.join(dir, 'audit.log');
    const policy = path.join(dir, 'policy.yaml');
    writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n  - level: Metadata\n');
    const kapi = await startSecureKapi([`${TOKEN},carol,uid-carol,system:masters`], ['-v=10', `--audit-log-path=${auditLog}`, `--audit-policy-file=${policy}`]);
    try {
      const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'leak' }, stringData: { password: SECRET } };
      expect((await kapi.asToken(TOKEN, 'POST', '/api/v1/namespaces/default/secrets', secret)).status).toBe(201);
      expect((await kapi.asToken(TOKEN, 'GET', '/api/v1/namespaces/default/secrets/leak')).status).toBe(200);
      expect((await kapi.asToken(`${TOKEN}-wrong`, 'GET', '/api/v1/namespaces/default/secrets/leak')).status).toBe(401);
      const audit = await eventually('audit lines for the secret', async () => {
        const text = readFileSync(auditLog, 'utf8');
        return text.includes('"resource":"secrets"') && text.includes('"verb":"get"') ? text : undefined;
      });
      const base64 = Buffer.from(SECRET).toString('base64');
      for (const [where, text] of [
        ['server output', kapi.process.output()],
        ['audit log', audit],
      ]) {
        expect([where, text.includes(TOKEN)]).toEqual([where, false]);
        expect([where, text.includes(SECRET) || text.includes(base64)]).toEqual([where, false]);
      }
    } finally {
      await kapi.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
