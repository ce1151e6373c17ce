import { execFile } from 'node:child_process';
import path from 'node:path';
import { Root, type Type } from 'protobufjs';
import { RawEtcd } from '../harness/etcd-keys';
import { kubectl, startServerProcess, type ServerProcess } from '../harness/process';

/**
 * --storage-media-type: built-in kinds in etcd as kube-apiserver stores them (Protobuf in the
 * `k8s\0` runtime.Unknown envelope by default), read back whatever encoding a value is in.
 * The test's own codec is built straight from the .proto files, not from kapi's.
 */

const ROOT = path.resolve(__dirname, '../..');
const MAGIC = Buffer.from('k8s\0', 'latin1');

const protos = new Root();
protos.resolvePath = (_origin, target) => path.join(ROOT, 'proto', target);
protos.loadSync(['k8s.io/apimachinery/pkg/runtime/generated.proto', 'k8s.io/api/core/v1/generated.proto', 'k8s.io/api/apps/v1/generated.proto']);
const unknownType = protos.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');

interface Envelope {
  apiVersion: string;
  kind: string;
  object: Record<string, unknown>;
}

/** A stored value as runtime.Unknown: its typeMeta and its raw message decoded as `message`. */
function openEnvelope(value: Buffer, message: string): Envelope {
  expect(value.subarray(0, 4)).toEqual(MAGIC);
  const unknown = unknownType.decode(value.subarray(4)) as unknown as { typeMeta: { apiVersion: string; kind: string }; raw: Uint8Array };
  const type: Type = protos.lookupType(message);
  const object = type.toObject(type.decode(unknown.raw), { longs: Number, bytes: Buffer }) as Record<string, unknown>;
  return { apiVersion: unknown.typeMeta.apiVersion, kind: unknown.typeMeta.kind, object };
}

/** What kube-apiserver writes for an object: magic, then Unknown{typeMeta, raw, contentEncoding, contentType}. */
function sealEnvelope(apiVersion: string, kind: string, message: string, object: Record<string, unknown>): Buffer {
  const type = protos.lookupType(message);
  const raw = type.encode(type.fromObject(object)).finish();
  return Buffer.concat([
    MAGIC,
    unknownType.encode(unknownType.fromObject({ typeMeta: { apiVersion, kind }, raw, contentEncoding: '', contentType: '' })).finish(),
  ]);
}

let kapi: ServerProcess & { port: number; prefix: string };
const etcd = new RawEtcd();
const k = (...args: string[]) => kubectl(kapi.url, args);
const stored = async (key: string): Promise<Buffer> => (await etcd.get(`${kapi.prefix}/${key}`))!;

beforeAll(async () => {
  kapi = await startServerProcess();
});

afterAll(async () => {
  await kapi.stop();
  etcd.close();
});

test('by default kubectl-created objects are Protobuf in etcd under kube keys; CRDs and custom resources stay JSON', async () => {
  expect((await k('create', 'configmap', 'cfg', '--from-literal=greeting=hello')).code).toBe(0);
  expect((await k('create', 'deployment', 'web', '--image=nginx:1.27')).code).toBe(0);
  expect((await k('create', 'service', 'nodeport', 'np', '--tcp=80:8080', '--node-port=30080')).code).toBe(0);

  const cm = openEnvelope(await stored('configmaps/default/cfg'), 'k8s.io.api.core.v1.ConfigMap');
  expect(cm).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', object: { metadata: { name: 'cfg', namespace: 'default' }, data: { greeting: 'hello' } } });
  // etcd's revision is the resourceVersion; the stored one is empty.
  expect((cm.object.metadata as { resourceVersion?: string }).resourceVersion ?? '').toBe('');
  const deploy = openEnvelope(await stored('deployments/default/web'), 'k8s.io.api.apps.v1.Deployment');
  expect(deploy).toMatchObject({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    object: { spec: { template: { spec: { containers: [{ image: 'nginx:1.27' }] } } } },
  });
  // Services under services/specs, and the node-port bitmap as a RangeAllocation with port 30080's bit set.
  expect(openEnvelope(await stored('services/specs/default/np'), 'k8s.io.api.core.v1.Service')).toMatchObject({ kind: 'Service' });
  const bitmap = openEnvelope(await stored('services/nodeports'), 'k8s.io.api.core.v1.RangeAllocation');
  expect(bitmap).toMatchObject({ apiVersion: 'v1', kind: 'RangeAllocation', object: { range: '30000-32767' } });
  const bits = bitmap.object.data as Buffer;
  expect(bits[bits.length - 1 - (80 >> 3)] & (1 << (80 & 7))).not.toBe(0);

  const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`;
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], crd)).code).toBe(0);
  expect(JSON.parse((await stored('apiextensions.k8s.io/customresourcedefinitions/gadgets.example.com')).toString())).toMatchObject({
    kind: 'CustomResourceDefinition',
  });
  const deadline = Date.now() + 30_000;
  let created = await kubectl(kapi.url, ['apply', '-f', '-'], 'apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g1, namespace: default}\nsize: 3\n');
  while (created.code !== 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    created = await kubectl(kapi.url, ['apply', '-f', '-'], 'apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g1, namespace: default}\nsize: 3\n');
  }
  expect(created.code).toBe(0);
  expect(JSON.parse((await stored('example.com/gadgets/default/g1')).toString())).toMatchObject({ kind: 'Gadget', size: 3 });
});

test("an object written into etcd in kube's own encoding is served; a JSON one is served and becomes Protobuf on its next write", async () => {
  const seconds = Math.floor(Date.parse('2024-05-06T07:08:09Z') / 1000);
  const kubeWritten = sealEnvelope('v1', 'ConfigMap', 'k8s.io.api.core.v1.ConfigMap', {
    metadata: { name: 'from-kube', namespace: 'default', uid: '6f1e2d3c-0000-4000-8000-00000000000a', creationTimestamp: { seconds } },
    data: { written: 'by kube-apiserver' },
  });
  await etcd.put(`${kapi.prefix}/configmaps/default/from-kube`, kubeWritten);
  const read = JSON.parse((await k('get', 'configmap', 'from-kube', '-o', 'json')).stdout);
  expect(read).toMatchObject({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'from-kube', uid: '6f1e2d3c-0000-4000-8000-00000000000a', creationTimestamp: '2024-05-06T07:08:09Z' },
    data: { written: 'by kube-apiserver' },
  });
  expect(read.metadata.resourceVersion).toMatch(/^[1-9]\d*$/);

  const legacy = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'legacy', namespace: 'default', uid: 'u-legacy', creationTimestamp: '2024-05-06T07:08:09Z' },
    data: { a: '1' },
  };
  await etcd.put(`${kapi.prefix}/configmaps/default/legacy`, JSON.stringify(legacy));
  expect(JSON.parse((await k('get', 'configmap', 'legacy', '-o', 'json')).stdout).data).toEqual({ a: '1' });
  // The storage-version migration of docs/architecture.md: a no-op replace still rewrites the value in the configured encoding.
  const before = JSON.parse((await k('get', 'configmap', 'legacy', '-o', 'json')).stdout);
  expect((await kubectl(kapi.url, ['replace', '-f', '-'], JSON.stringify(before))).code).toBe(0);
  expect(openEnvelope(await stored('configmaps/default/legacy'), 'k8s.io.api.core.v1.ConfigMap').object).toMatchObject({ data: { a: '1' } });
  const after = JSON.parse((await k('get', 'configmap', 'legacy', '-o', 'json')).stdout);
  expect(Number(after.metadata.resourceVersion)).toBeGreaterThan(Number(before.metadata.resourceVersion));
  // Once in the configured encoding, the same replace is a no-op again.
  expect((await kubectl(kapi.url, ['replace', '-f', '-'], JSON.stringify(after))).code).toBe(0);
  expect(JSON.parse((await k('get', 'configmap', 'legacy', '-o', 'json')).stdout).metadata.resourceVersion).toBe(after.metadata.resourceVersion);
});

/** A Protobuf list body's items: the envelope's raw list message after its ListMeta (field 1), the one part that names the read's revision. */
function protobufListItems(body: Buffer): Buffer {
  expect(body.subarray(0, 4)).toEqual(MAGIC);
  const raw = Buffer.from((unknownType.decode(body.subarray(4)) as unknown as { raw: Uint8Array }).raw);
  expect(raw[0]).toBe(0x0a);
  let length = 0;
  let offset = 1;
  for (let shift = 0; ; shift += 7) {
    const byte = raw[offset++];
    length += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) break;
  }
  return raw.subarray(offset + length);
}

test("a list from the watch cache is byte for byte etcd's, JSON and Protobuf, with objects sharing managed fields", async () => {
  // The same manager writing the same shape: equal FieldsV1 bytes, one tree shared in the cache.
  for (const name of ['shared-1', 'shared-2', 'shared-3']) expect((await k('create', 'configmap', name, '--from-literal=key=value')).code).toBe(0);
  expect((await k('label', 'configmap', 'shared-1', 'extra=yes')).code).toBe(0);
  const base = `${kapi.url}/api/v1/namespaces/default/configmaps`;
  const read = async (query: string, accept: string): Promise<Buffer> => {
    const res = await fetch(`${base}${query}`, { headers: { Accept: accept } });
    expect(res.status).toBe(200);
    return Buffer.from(await res.arrayBuffer());
  };
  // The cache learns of the label from its watch; wait for it, bounded.
  const deadline = Date.now() + 30_000;
  while (!(await read('?resourceVersion=0', 'application/json')).includes('"extra":"yes"') && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));

  // etcd 3.4 serves consistent lists (no resourceVersion) from etcd itself; resourceVersion=0 from the cache.
  const fromCache = await read('?resourceVersion=0', 'application/json');
  const fromEtcd = await read('', 'application/json');
  const items = (body: Buffer): Buffer => body.subarray(body.indexOf('"items":'));
  expect(items(fromCache).toString()).toBe(items(fromEtcd).toString());
  const list = JSON.parse(fromCache.toString()) as { items: { metadata: { name: string; managedFields: { manager: string; fieldsV1: unknown }[] } }[] };
  const managed = Object.fromEntries(list.items.map((i) => [i.metadata.name, i.metadata.managedFields]));
  expect(managed['shared-1'].map((e) => e.manager)).toEqual(['kubectl-create', 'kubectl-label']);
  // shared-1's new ownership did not reach the objects whose tree it shared.
  const owned = (name: string) => managed[name].map(({ manager, fieldsV1 }) => ({ manager, fieldsV1 }));
  expect(owned('shared-2')).toEqual(owned('shared-3'));
  expect(owned('shared-2')).toEqual([owned('shared-1')[0]]);

  const protobuf = 'application/vnd.kubernetes.protobuf';
  expect(protobufListItems(await read('?resourceVersion=0', protobuf)).equals(protobufListItems(await read('', protobuf)))).toBe(true);
  const selected = '?labelSelector=extra%3Dyes';
  const selectedFromCache = await read(`${selected}&resourceVersion=0`, 'application/json');
  expect(items(selectedFromCache).toString()).toBe(items(await read(selected, 'application/json')).toString());
  expect((JSON.parse(selectedFromCache.toString()) as { items: unknown[] }).items).toHaveLength(1);
});

test('--storage-media-type=application/json stores JSON and still reads Protobuf values; an unknown type is refused', async () => {
  const refused = await new Promise<{ code: number | null; stderr: string }>((resolve) =>
    execFile(process.execPath, [path.join(ROOT, 'dist/main.js'), '--storage-media-type=text/plain'], { timeout: 30_000 }, (err, _out, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr }),
    ),
  );
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toContain(
    '--storage-media-type "text/plain" invalid, allowed values: application/json, application/vnd.kubernetes.protobuf, application/yaml',
  );

  await kapi.stop();
  kapi = await startServerProcess(['--storage-media-type=application/json'], { port: kapi.port, prefix: kapi.prefix });
  expect(JSON.parse((await k('get', 'configmap', 'cfg', '-o', 'json')).stdout).data).toEqual({ greeting: 'hello' });
  expect((await k('create', 'configmap', 'plain', '--from-literal=x=y')).code).toBe(0);
  expect(JSON.parse((await stored('configmaps/default/plain')).toString())).toMatchObject({ kind: 'ConfigMap', data: { x: 'y' } });
  expect((await k('label', 'configmap', 'cfg', 'moved=json')).code).toBe(0);
  expect(JSON.parse((await stored('configmaps/default/cfg')).toString())).toMatchObject({
    metadata: { labels: { moved: 'json' } },
    data: { greeting: 'hello' },
  });
});
