import { get as httpGet } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { Encoder } from 'cbor-x';
import { load } from 'js-yaml';
import { decodeCbor, encodeCbor } from '../../src/codec/cbor';
import { decodeProtobuf } from '../../src/codec/protobuf';
import { protoRoot } from '../../src/schema/proto-loader';
import { encodeProtobuf } from '../../src/codec/protobuf-write';
import { KNOWN_FEATURE_GATES } from '../../src/server/feature-gates';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

/** Every representation and encoding from outside, over HTTP: get, list, watch, 406 and 415, compression. */

type Server = Awaited<ReturnType<typeof startTestServer>>;
let server: Server;
let cborServer: Server;
let api: Api;
const NS = '/api/v1/namespaces/default';
const CM = `${NS}/configmaps`;
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const TABLE = 'application/json;as=Table;g=meta.k8s.io;v=v1';

beforeAll(async () => {
  [server, cborServer] = await Promise.all([startTestServer(), startTestServer({ featureGates: { ...KNOWN_FEATURE_GATES, CBORServingAndStorage: true } })]);
  api = new Api(server.url);
  for (const name of ['r1', 'r2']) await api.post(CM, { metadata: { name, labels: { app: 'rep' } }, data: { k: name } });
  await api.post(`${NS}/secrets`, { metadata: { name: 'pw' }, data: { pw: Buffer.from('hunter2').toString('base64') } });
});

afterAll(async () => {
  await Promise.all([server.close(), cborServer.close()]);
});

interface Raw {
  status: number;
  headers: Headers;
  body: Buffer;
}

async function raw(base: string, path: string, headers: Record<string, string> = {}, init: RequestInit = {}): Promise<Raw> {
  const res = await fetch(`${base}${path}`, { ...init, headers: { ...headers, ...(init.headers as Record<string, string>) } });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

/** Reads a binary watch stream until `count` frames arrived, splitting them with `split`. */
async function readFrames(
  base: string,
  path: string,
  accept: string,
  count: number,
  split: (buf: Buffer) => [Buffer[], Buffer],
): Promise<{ contentType: string | null; frames: Buffer[] }> {
  const abort = new AbortController();
  const res = await fetch(`${base}${path}`, { headers: { Accept: accept }, signal: abort.signal });
  const reader = res.body!.getReader();
  let pending: Buffer = Buffer.alloc(0);
  const frames: Buffer[] = [];
  const deadline = Date.now() + 15_000;
  while (frames.length < count && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    const [got, rest] = split(Buffer.concat([pending, Buffer.from(value)]));
    frames.push(...got);
    pending = rest;
  }
  abort.abort();
  return { contentType: res.headers.get('content-type'), frames };
}

/** kube-apiserver's protobuf framer: a 4-byte big-endian length before each WatchEvent. */
function lengthDelimited(input: Buffer): [Buffer[], Buffer] {
  let buf = input;
  const out: Buffer[] = [];
  while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
    out.push(buf.subarray(4, 4 + buf.readUInt32BE(0)));
    buf = buf.subarray(4 + buf.readUInt32BE(0));
  }
  return [out, buf];
}

function watchEvent(frame: Buffer): { type: string; object: Record<string, unknown> } {
  const event = protoRoot().lookupType('k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent').decode(frame) as unknown as { type: string; object: { raw: Buffer } };
  return { type: event.type, object: decodeProtobuf(Buffer.from(event.object.raw)) };
}

describe('Protobuf', () => {
  test('get: k8s\\0, runtime.Unknown, the object in its own schema', async () => {
    const res = await raw(server.url, `${CM}/r1`, { Accept: PROTOBUF });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(PROTOBUF);
    expect([...res.body.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
    expect([...res.body.subarray(-4)]).toEqual([0x1a, 0x00, 0x22, 0x00]);
    const json = (await api.get(`${CM}/r1`)).body;
    expect(decodeProtobuf(res.body)).toEqual({ ...json, metadata: { ...json.metadata, managedFields: json.metadata.managedFields } });
  });

  test("a large object's Protobuf answer (its 300 containers encoded in slices) decodes to its JSON answer", async () => {
    const containers = Array.from({ length: 300 }, (_, i) => ({ name: `c${i}`, image: 'x' }));
    const pod = { metadata: { name: 'large-pb' }, spec: { containers } };
    const created = await raw(
      server.url,
      `${NS}/pods?dryRun=All`,
      { Accept: PROTOBUF, 'Content-Type': 'application/json' },
      { method: 'POST', body: JSON.stringify(pod) },
    );
    expect(created.status).toBe(201);
    const json = (await api.post(`${NS}/pods?dryRun=All`, pod)).body;
    const decoded = decodeProtobuf(created.body) as typeof json;
    // The service account token volume's name is random per create.
    const named = (spec: unknown) => JSON.parse(JSON.stringify(spec).replaceAll(/kube-api-access-\w+/g, 'kube-api-access'));
    expect(named(decoded.spec)).toEqual(named(json.spec));
    expect(decoded.spec.containers).toHaveLength(300);
  });

  test('the alias application/vnd.cluster.protobuf is answered in kind', async () => {
    const res = await raw(server.url, `${CM}/r1`, { Accept: 'application/vnd.cluster.protobuf' });
    expect(res.headers.get('content-type')).toBe('application/vnd.cluster.protobuf');
    expect(decodeProtobuf(res.body).metadata.name).toBe('r1');
  });

  test('list: a ConfigMapList whose items decode to what JSON lists', async () => {
    const res = await raw(server.url, `${CM}?labelSelector=app%3Drep`, { Accept: PROTOBUF });
    const list = decodeProtobuf(res.body) as unknown as { kind: string; items: { metadata: { name: string } }[]; metadata: { resourceVersion: string } };
    expect(list.kind).toBe('ConfigMapList');
    expect(list.items.map((i) => i.metadata.name)).toEqual(['r1', 'r2']);
    expect(Number(list.metadata.resourceVersion)).toBeGreaterThan(0);
  });

  test('a Secret keeps its bytes', async () => {
    const secret = decodeProtobuf((await raw(server.url, `${NS}/secrets/pw`, { Accept: PROTOBUF })).body) as unknown as { data: { pw: string } };
    expect(Buffer.from(secret.data.pw, 'base64').toString()).toBe('hunter2');
  });

  test('errors are a Status in protobuf', async () => {
    const res = await raw(server.url, `${CM}/missing`, { Accept: PROTOBUF });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe(PROTOBUF);
    expect(decodeProtobuf(res.body)).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      reason: 'NotFound',
      code: 404,
      message: 'configmaps "missing" not found',
    });
  });

  test('request bodies: create from protobuf; delete with protobuf DeleteOptions', async () => {
    const body = encodeProtobuf({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'from-pb' }, data: { a: 'b' } });
    const created = await raw(server.url, CM, { 'Content-Type': PROTOBUF, Accept: PROTOBUF }, { method: 'POST', body });
    expect(created.status).toBe(201);
    expect(decodeProtobuf(created.body)).toMatchObject({ metadata: { name: 'from-pb' }, data: { a: 'b' } });
    const options = encodeProtobuf({ apiVersion: 'meta.k8s.io/v1', kind: 'DeleteOptions', preconditions: { uid: 'not-the-uid' } });
    const refused = await raw(server.url, `${CM}/from-pb`, { 'Content-Type': PROTOBUF }, { method: 'DELETE', body: options });
    expect(refused.status).toBe(409);
    const noPrefix = await raw(server.url, CM, { 'Content-Type': PROTOBUF }, { method: 'POST', body: JSON.stringify({ metadata: { name: 'x' } }) });
    expect(noPrefix.status).toBe(400);
  });

  test('watch: length-prefixed WatchEvent frames with the object as a complete protobuf body', async () => {
    const list = await api.get(CM);
    const path = `${CM}?watch=true&resourceVersion=${list.body.metadata.resourceVersion}`;
    const reading = readFrames(server.url, path, PROTOBUF, 2, lengthDelimited);
    await new Promise((r) => setTimeout(r, 200));
    await api.post(CM, { metadata: { name: 'w-pb' }, data: { n: '1' } });
    await api.put(`${CM}/w-pb`, { metadata: { name: 'w-pb' }, data: { n: '2' } });
    const { contentType, frames } = await reading;
    expect(contentType).toBe(`${PROTOBUF};stream=watch`);
    const events = frames.map(watchEvent);
    expect(events.map((e) => [e.type, e.object.kind, (e.object.metadata as { name: string }).name])).toEqual([
      ['ADDED', 'ConfigMap', 'w-pb'],
      ['MODIFIED', 'ConfigMap', 'w-pb'],
    ]);
  });

  test('PartialObjectMetadata and its list in protobuf, as client-go metadata informers read them', async () => {
    const list = await raw(server.url, `${CM}?labelSelector=app%3Drep`, {
      Accept: `${PROTOBUF};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json`,
    });
    expect(list.headers.get('content-type')).toBe(PROTOBUF);
    expect(decodeProtobuf(list.body)).toMatchObject({
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadataList',
      items: [{ metadata: { name: 'r1' } }, { metadata: { name: 'r2' } }],
    });
    const one = decodeProtobuf((await raw(server.url, `${CM}/r1`, { Accept: `${PROTOBUF};as=PartialObjectMetadata;g=meta.k8s.io;v=v1` })).body);
    expect(one).toMatchObject({ apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: { name: 'r1' } });
    expect(one).not.toHaveProperty('data');
  });

  test('a Table is not served in protobuf: the next clause answers, or 406', async () => {
    const fallback = await api.get(`${CM}/r1`, { accept: `${PROTOBUF};as=Table;g=meta.k8s.io;v=v1, application/json` });
    expect(fallback.body.kind).toBe('ConfigMap');
    const only = await api.get(`${CM}/r1`, { accept: `${PROTOBUF};as=Table;g=meta.k8s.io;v=v1` });
    expect(only.status).toBe(406);
  });
});

describe('Table and PartialObjectMetadata in JSON and YAML', () => {
  test('both group spellings; YAML too', async () => {
    for (const g of ['meta.k8s.io', 'meta.cluster']) {
      const res = await api.get(CM, { accept: `application/json;as=Table;g=${g};v=v1` });
      expect(res.body).toMatchObject({ kind: 'Table', apiVersion: `${g}/v1` });
      expect(res.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual(['Name', 'Data', 'Age']);
    }
    const yaml = await api.get(`${CM}/r1`, { accept: 'application/yaml;as=Table;g=meta.k8s.io;v=v1' });
    expect(yaml.headers.get('content-type')).toBe('application/yaml');
    expect(yaml.text).toMatch(/^apiVersion: meta.k8s.io\/v1\ncolumnDefinitions:\n/);
  });

  test('an empty bytes value stored in Protobuf reads back as an empty string, as Go decodes a map entry without its value', async () => {
    // The create's own answer still shows n: null (docs/divergences.md); what is read back is Go's.
    expect((await api.post(`${NS}/secrets`, { metadata: { name: 'empty-value' }, data: { k: '', n: null } })).status).toBe(201);
    expect((await api.post(CM, { metadata: { name: 'empty-binary' }, binaryData: { k: '' } })).status).toBe(201);
    expect((await api.get(`${NS}/secrets/empty-value`)).body.data).toEqual({ k: '', n: '' });
    expect((await api.get(`${CM}/empty-binary`)).body.binaryData).toEqual({ k: '' });
    const cached = await api.get(`${NS}/secrets?resourceVersion=0&fieldSelector=metadata.name%3Dempty-value`);
    expect(cached.body.items[0].data).toEqual({ k: '', n: '' });
  });

  test('a data key named __proto__ is an ordinary key, read back from Protobuf storage, the cache and a list', async () => {
    // An object literal's __proto__ sets its prototype; JSON.parse makes it an own key, as a client sends it.
    const data = JSON.parse('{"__proto__":"x","a":"b"}') as Record<string, string>;
    expect((await api.post(CM, { metadata: { name: 'proto-key' }, data })).status).toBe(201);
    const keys = (body: { data: Record<string, string> }) => Object.entries(body.data);
    expect(keys((await api.get(`${CM}/proto-key`)).body)).toEqual([
      ['__proto__', 'x'],
      ['a', 'b'],
    ]);
    expect(keys((await api.get(`${CM}/proto-key?resourceVersion=0`)).body)).toEqual([
      ['__proto__', 'x'],
      ['a', 'b'],
    ]);
    const listed = await api.get(`${CM}?fieldSelector=metadata.name%3Dproto-key`);
    expect(keys(listed.body.items[0])).toEqual([
      ['__proto__', 'x'],
      ['a', 'b'],
    ]);
    // YAML of an object large enough to be written in pieces (300 binaryData keys) keeps it too.
    const large = { metadata: { name: 'proto-key-large' }, data, binaryData: Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, 'dg=='])) };
    expect((await api.post(CM, large)).status).toBe(201);
    const yaml = await api.get(`${CM}/proto-key-large`, { accept: 'application/yaml' });
    expect(Object.entries((load(yaml.text) as { data: Record<string, string> }).data)).toEqual([
      ['__proto__', 'x'],
      ['a', 'b'],
    ]);
  });

  test("selectors in a Table's cells list their keys in Go's byte order, as kube's printers sort them (upper case first)", async () => {
    const labels = { app: 'x', Tier: 'web', a_b: '1', 'a-b': '2' };
    const cell = async (path: string, name: string): Promise<unknown> => {
      const table = (await api.get(`${path}/${name}`, { accept: TABLE })).body;
      const column = table.columnDefinitions.findIndex((c: { name: string }) => c.name === 'Selector');
      return table.rows[0].cells[column];
    };
    const deployment = {
      metadata: { name: 'go-order' },
      spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    expect((await api.post('/apis/apps/v1/namespaces/default/deployments', deployment)).status).toBe(201);
    expect((await api.post(`${NS}/services`, { metadata: { name: 'go-order' }, spec: { selector: labels, ports: [{ port: 80 }] } })).status).toBe(201);
    expect(await cell('/apis/apps/v1/namespaces/default/deployments', 'go-order')).toBe('Tier=web,a-b=2,a_b=1,app=x');
    expect(await cell(`${NS}/services`, 'go-order')).toBe('Tier=web,a-b=2,a_b=1,app=x');
    // metav1.FormatLabelSelector: matchLabels and matchExpressions sorted together by key, In's values sorted.
    const expressions = {
      metadata: { name: 'go-order-expressions' },
      spec: {
        selector: { matchLabels: { tier: 'web' }, matchExpressions: [{ key: 'app', operator: 'In', values: ['b', 'a'] }] },
        template: { metadata: { labels: { tier: 'web', app: 'a' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    };
    expect((await api.post('/apis/apps/v1/namespaces/default/deployments', expressions)).status).toBe(201);
    expect(await cell('/apis/apps/v1/namespaces/default/deployments', 'go-order-expressions')).toBe('app in (a,b),tier=web');
  });

  test("a large object's YAML (its map written in slices) is the YAML of its JSON, keys sorted", async () => {
    const data = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, i % 2 ? `v${i}` : `multi\nline ${i}`]));
    expect((await api.post(CM, { metadata: { name: 'large-yaml' }, data })).status).toBe(201);
    const json = await api.get(`${CM}/large-yaml`);
    const yaml = await api.get(`${CM}/large-yaml`, { accept: 'application/yaml' });
    expect(yaml.headers.get('content-type')).toBe('application/yaml');
    expect(load(yaml.text)).toEqual(json.body);
    const keys = [...yaml.text.matchAll(/^  (k\d+):/gm)].map((m) => m[1]);
    expect(keys).toEqual(Object.keys(data).sort());
  });

  test('PartialObjectMetadata for one object; a list for a list; each the wrong way round is 406', async () => {
    const one = await api.get(`${CM}/r1`, { accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1' });
    expect(one.body).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'r1' } });
    expect(one.body.data).toBeUndefined();
    const list = await api.get(CM, { accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' });
    expect(list.body.kind).toBe('PartialObjectMetadataList');
    const wrongList = await api.get(CM, { accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1' });
    expect(wrongList.status).toBe(406);
    expect(wrongList.body.message).toBe('you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)');
    const wrongOne = await api.get(`${CM}/r1`, { accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' });
    expect(wrongOne.body.message).toBe('you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)');
  });

  test('watch in Table form: columns in the first event only', async () => {
    const list = await api.get(CM);
    const reading = readFrames(server.url, `${CM}?watch=true&resourceVersion=${list.body.metadata.resourceVersion}`, TABLE, 2, (buf) => {
      const lines = buf.toString().split('\n');
      const rest = lines.pop()!;
      return [lines.filter(Boolean).map((l) => Buffer.from(l)), Buffer.from(rest)];
    });
    await new Promise((r) => setTimeout(r, 200));
    await api.post(CM, { metadata: { name: 'w-tbl' } });
    await api.delete(`${CM}/w-tbl`);
    const events = (await reading).frames.map((f) => JSON.parse(f.toString()));
    expect(events[0]).toMatchObject({ type: 'ADDED', object: { kind: 'Table', rows: [{ cells: ['w-tbl', 0, expect.any(String)] }] } });
    expect(events[0].object.columnDefinitions).toHaveLength(3);
    expect(events[1]).toMatchObject({ type: 'DELETED', object: { kind: 'Table', columnDefinitions: null } });
  });
});

describe('negotiation failures', () => {
  test('406 for an unserved type: the Status as indented JSON, listing the served types', async () => {
    const res = await api.get(`${CM}/r1`, { accept: 'text/html' });
    expect(res.status).toBe(406);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.text).toBe(
      JSON.stringify(
        {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
          reason: 'NotAcceptable',
          code: 406,
        },
        null,
        2,
      ),
    );
  });

  test('a YAML watch is 406 (written in YAML), listing the stream types', async () => {
    const res = await api.get(`${CM}?watch=true`, { accept: 'application/yaml' });
    expect(res.status).toBe(406);
    expect(res.headers.get('content-type')).toBe('application/yaml');
    expect(res.text).toContain(
      "message: 'only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch'\n",
    );
  });

  test('q-values pick between served types', async () => {
    const res = await api.get(`${CM}/r1`, { accept: 'application/json;q=0.4, application/yaml;q=0.8' });
    expect(res.headers.get('content-type')).toBe('application/yaml');
    const pb = await raw(server.url, `${CM}/r1`, { Accept: `application/json;q=0.9, ${PROTOBUF}` });
    expect(pb.headers.get('content-type')).toBe(PROTOBUF);
  });

  test('with CBOR off, application/cbor is neither served (406) nor read (415)', async () => {
    expect((await api.get(`${CM}/r1`, { accept: 'application/cbor' })).status).toBe(406);
    const res = await api.request('POST', CM, { raw: Buffer.from([0xd9, 0xd9, 0xf7, 0xa0]), contentType: 'application/cbor' });
    expect(res.status).toBe(415);
    expect(res.body.message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    );
  });
});

describe('CBOR behind CBORServingAndStorage', () => {
  test('get, list, create and errors in CBOR; the 406 list names it', async () => {
    const created = await raw(
      cborServer.url,
      CM,
      { 'Content-Type': 'application/cbor', Accept: 'application/cbor' },
      { method: 'POST', body: encodeCbor({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cb' }, data: { a: 'b' } }) },
    );
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toBe('application/cbor');
    expect([...created.body.subarray(0, 3)]).toEqual([0xd9, 0xd9, 0xf7]);
    expect(decodeCbor(created.body)).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'cb' }, data: { a: 'b' } });
    const list = decodeCbor((await raw(cborServer.url, CM, { Accept: 'application/cbor' })).body) as { kind: string; items: unknown[] };
    expect(list.kind).toBe('ConfigMapList');
    const missing = await raw(cborServer.url, `${CM}/nope`, { Accept: 'application/cbor' });
    expect(decodeCbor(missing.body)).toMatchObject({ kind: 'Status', code: 404 });
    const refused = await new Api(cborServer.url).get(`${CM}/cb`, { accept: 'text/html' });
    expect(refused.body.message).toBe(
      'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor',
    );
  });

  test('integers of eight bytes (2^32 and over) read as int64: what a CBOR GET answers, a CBOR PUT takes back; beyond int64 is a 400', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'long-grace' },
      spec: { terminationGracePeriodSeconds: 5_000_000_000, containers: [{ name: 'c', image: 'nginx' }] },
    };
    expect((await new Api(cborServer.url).post(`${NS}/pods`, pod)).status).toBe(201);
    const got = await raw(cborServer.url, `${NS}/pods/long-grace`, { Accept: 'application/cbor' });
    const back = await raw(
      cborServer.url,
      `${NS}/pods/long-grace`,
      { 'Content-Type': 'application/cbor', Accept: 'application/json' },
      { method: 'PUT', body: got.body },
    );
    expect(back.status).toBe(200);
    expect(JSON.parse(back.body.toString()).spec.terminationGracePeriodSeconds).toBe(5_000_000_000);
    const overflow = new Encoder({ useRecords: false, tagUint8Array: false }).encode({
      ...pod,
      metadata: { name: 'overflow' },
      spec: { ...pod.spec, terminationGracePeriodSeconds: 2n ** 64n - 1n },
    });
    const refused = await raw(
      cborServer.url,
      `${NS}/pods`,
      { 'Content-Type': 'application/cbor', Accept: 'application/json' },
      { method: 'POST', body: overflow },
    );
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body.toString()).message).toContain(
      "cannot unmarshal positive integer into Go value of type int64 (18446744073709551615 overflows Go's int64)",
    );
  });

  test('server-side apply in CBOR (application/apply-patch+cbor), refused with the gate off', async () => {
    const config = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied-cbor' }, data: { a: 'b' } };
    const path = `${CM}/applied-cbor?fieldManager=cbor-tool`;
    const applied = await raw(cborServer.url, path, { 'Content-Type': 'application/apply-patch+cbor' }, { method: 'PATCH', body: encodeCbor(config) });
    expect(applied.status).toBe(201);
    const got = await new Api(cborServer.url).get(`${CM}/applied-cbor`);
    expect(got.body.data).toEqual({ a: 'b' });
    expect(got.body.metadata.managedFields[0]).toMatchObject({ manager: 'cbor-tool', operation: 'Apply' });
    const garbled = await raw(cborServer.url, path, { 'Content-Type': 'application/apply-patch+cbor' }, { method: 'PATCH', body: Buffer.from([0xff, 0x00]) });
    expect(garbled.status).toBe(400);
    const off = await raw(server.url, path, { 'Content-Type': 'application/apply-patch+cbor' }, { method: 'PATCH', body: encodeCbor(config) });
    expect(off.status).toBe(415);
    expect(JSON.parse(off.body.toString()).message).not.toContain('cbor');
  });

  test('watch streams are application/cbor-seq: one self-described item per event', async () => {
    const cborApi = new Api(cborServer.url);
    const list = await cborApi.get(CM);
    const reading = readFrames(cborServer.url, `${CM}?watch=true&resourceVersion=${list.body.metadata.resourceVersion}`, 'application/cbor', 1, (buf) => [
      [buf],
      Buffer.alloc(0),
    ]);
    await new Promise((r) => setTimeout(r, 200));
    await cborApi.post(CM, { metadata: { name: 'w-cbor' } });
    const { contentType, frames } = await reading;
    expect(contentType).toBe('application/cbor-seq');
    expect(decodeCbor(frames[0])).toMatchObject({ type: 'ADDED', object: { kind: 'ConfigMap', metadata: { name: 'w-cbor' } } });
  });
});

describe('compression', () => {
  beforeAll(async () => {
    const big = 'x'.repeat(60 * 1024);
    for (const name of ['big1', 'big2', 'big3']) await api.post(CM, { metadata: { name, labels: { size: 'big' } }, data: { big } });
  });

  test('gzip past 128 KiB when the client takes it, with Vary: Accept-Encoding', async () => {
    for (const accept of ['application/json', PROTOBUF]) {
      const res = await raw(server.url, `${CM}?labelSelector=size%3Dbig`, { Accept: accept, 'Accept-Encoding': 'gzip' }, {});
      // fetch decompresses on its own: the headers say what was sent.
      expect(res.headers.get('content-encoding')).toBe('gzip');
      expect(res.headers.get('vary')).toBe('Accept-Encoding');
      expect(res.body.length).toBeGreaterThan(180 * 1024);
    }
  });

  test('small responses, and clients without gzip, are not compressed', async () => {
    const small = await raw(server.url, `${CM}/r1`, { 'Accept-Encoding': 'gzip' });
    expect(small.headers.get('content-encoding')).toBeNull();
    const plain = await new Promise<{ encoding: string | undefined; length: number }>((resolve, reject) => {
      httpGet(`${server.url}${CM}?labelSelector=size%3Dbig`, { headers: { 'Accept-Encoding': 'identity' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ encoding: res.headers['content-encoding'], length: Buffer.concat(chunks).length }));
      }).on('error', reject);
    });
    expect(plain.encoding).toBeUndefined();
    expect(plain.length).toBeGreaterThan(180 * 1024);
  });

  test('APIResponseCompression=false turns it off', async () => {
    const off = await startTestServer({ featureGates: { ...KNOWN_FEATURE_GATES, APIResponseCompression: false } });
    try {
      const offApi = new Api(off.url);
      for (const name of ['big1', 'big2', 'big3']) await offApi.post(CM, { metadata: { name }, data: { big: 'x'.repeat(60 * 1024) } });
      const res = await raw(off.url, CM, { 'Accept-Encoding': 'gzip' });
      expect(res.headers.get('content-encoding')).toBeNull();
    } finally {
      await off.close();
    }
  });

  test('the gzipped bytes are the response', async () => {
    const body = await new Promise<Buffer>((resolve, reject) => {
      httpGet(`${server.url}${CM}?labelSelector=size%3Dbig`, { headers: { 'Accept-Encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks)));
      }).on('error', reject);
    });
    expect(JSON.parse(gunzipSync(body).toString()).items).toHaveLength(3);
  });
});
