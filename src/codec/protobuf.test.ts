import { DecodeError } from './decode-error';
import { decodeProtobuf, decodeStoredProtobuf, PROTOBUF_MAGIC } from './protobuf';
import { Writer } from 'protobufjs';
import { protoType, protoTypeName } from '../schema/proto-loader';

/** A body as client-go sends it: "k8s\0", then a runtime.Unknown holding the encoded object. */
function body(apiVersion: string, kind: string, typeName: string, object: Record<string, unknown>): Buffer {
  const type = protoType(typeName);
  const raw = type.encode(type.fromObject(object)).finish();
  const unknown = protoType('k8s.io.apimachinery.pkg.runtime.Unknown');
  const envelope = unknown.encode(unknown.fromObject({ typeMeta: { apiVersion, kind }, raw, contentEncoding: '', contentType: '' })).finish();
  return Buffer.concat([PROTOBUF_MAGIC, envelope]);
}

describe('protoTypeName', () => {
  test.each([
    [{ group: '', version: 'v1', kind: 'Pod' }, 'k8s.io.api.core.v1.Pod'],
    [{ group: 'apps', version: 'v1', kind: 'Deployment' }, 'k8s.io.api.apps.v1.Deployment'],
    [{ group: 'coordination.k8s.io', version: 'v1', kind: 'Lease' }, 'k8s.io.api.coordination.v1.Lease'],
    [{ group: '', version: 'v1', kind: 'DeleteOptions' }, 'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions'],
  ])('%j -> %s', (gvk, name) => expect(protoTypeName(gvk)).toBe(name));
});

describe('decodeProtobuf', () => {
  test('a Namespace, with its creation time in RFC 3339', () => {
    const ns = body('v1', 'Namespace', 'k8s.io.api.core.v1.Namespace', {
      metadata: { name: 'team-a', labels: { env: 'prod' }, creationTimestamp: { seconds: 1700000000, nanos: 0 } },
      spec: { finalizers: ['kubernetes'] },
    });
    expect(decodeProtobuf(ns)).toEqual({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team-a', labels: { env: 'prod' }, creationTimestamp: '2023-11-14T22:13:20Z' },
      spec: { finalizers: ['kubernetes'] },
      // NamespaceStatus is a non-pointer struct: Go writes it.
      status: {},
    });
  });

  test('a ConfigMap; empty strings and empty maps are dropped, immutable=false (a pointer) is kept', () => {
    const cm = body('v1', 'ConfigMap', 'k8s.io.api.core.v1.ConfigMap', {
      metadata: { name: 'cfg', namespace: 'default', generateName: '', resourceVersion: '' },
      data: { 'app.properties': 'a=1\n' },
      binaryData: {},
      immutable: false,
    });
    expect(decodeProtobuf(cm)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cfg', namespace: 'default' },
      data: { 'app.properties': 'a=1\n' },
      immutable: false,
    });
  });

  test('a Secret: bytes become base64 as in JSON', () => {
    const secret = body('v1', 'Secret', 'k8s.io.api.core.v1.Secret', {
      metadata: { name: 's' },
      data: { password: Buffer.from('hunter2'), empty: Buffer.alloc(0) },
      type: 'Opaque',
    });
    expect(decodeProtobuf(secret)).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data: { password: 'aHVudGVyMg==', empty: '' },
      type: 'Opaque',
    });
  });

  test('a Deployment: replicas 0 is kept, zero non-pointer scalars dropped, IntOrString and Quantity', () => {
    const deployment = body('apps/v1', 'Deployment', 'k8s.io.api.apps.v1.Deployment', {
      metadata: { name: 'web', namespace: 'default', generation: 0 },
      spec: {
        replicas: 0,
        minReadySeconds: 0,
        paused: false,
        selector: { matchLabels: { app: 'web' } },
        strategy: {
          type: 'RollingUpdate',
          rollingUpdate: { maxUnavailable: { type: 0, intVal: 1 }, maxSurge: { type: 1, strVal: '25%' } },
        },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              {
                name: 'nginx',
                image: 'nginx:1.27',
                ports: [{ containerPort: 80, protocol: 'TCP' }],
                resources: { limits: { cpu: { string: '500m' }, memory: { string: '128Mi' } } },
              },
            ],
          },
        },
      },
    });
    expect(decodeProtobuf(deployment)).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'web' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: '25%' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              {
                name: 'nginx',
                image: 'nginx:1.27',
                ports: [{ containerPort: 80, protocol: 'TCP' }],
                resources: { limits: { cpu: '500m', memory: '128Mi' } },
              },
            ],
          },
        },
      },
      status: {},
    });
  });

  test('a body without the k8s\\0 prefix is a DecodeError', () => {
    const json = Buffer.from('{"kind":"Namespace"}');
    expect(() => decodeProtobuf(json)).toThrow(DecodeError);
    expect(() => decodeProtobuf(json)).toThrow('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
    expect(() => decodeProtobuf(Buffer.from('k8s'))).toThrow(DecodeError);
  });

  test('an envelope without a kind, or of an unknown kind, is a DecodeError', () => {
    expect(() => decodeProtobuf(body('', '', 'k8s.io.api.core.v1.Namespace', {}))).toThrow("Object 'Kind' is missing in protobuf envelope");
    expect(() => decodeProtobuf(body('v1', 'Widget', 'k8s.io.api.core.v1.Namespace', {}))).toThrow('no kind "Widget" is registered for version "v1"');
  });

  test('the envelope: fields it does not know are skipped, a field written twice keeps its last value, a wrong wire type is a DecodeError', () => {
    const raw = protoType('k8s.io.api.core.v1.Namespace')
      .encode({ metadata: { name: 'b' } })
      .finish();
    const typeMeta = (apiVersion: string, kind: string): Uint8Array => new Writer().uint32(0x0a).string(apiVersion).uint32(0x12).string(kind).finish();
    const envelope = new Writer()
      .uint32(0x0a)
      .bytes(typeMeta('v1', 'Secret'))
      .uint32(0x12)
      .bytes(Buffer.from([0x0a, 0x03, 0x61, 0x61, 0x61]))
      // Field 9 (a varint and a length-delimited value) is nobody's.
      .uint32(0x48)
      .uint32(300)
      .uint32(0x4a)
      .string('ignored')
      .uint32(0x0a)
      .bytes(typeMeta('v1', 'Namespace'))
      .uint32(0x12)
      .bytes(raw)
      .uint32(0x1a)
      .string('')
      .finish();
    expect(decodeProtobuf(Buffer.concat([PROTOBUF_MAGIC, envelope]))).toMatchObject({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'b' } });
    // raw (field 2) as a varint.
    const wrongWire = new Writer().uint32(0x0a).bytes(typeMeta('v1', 'Namespace')).uint32(0x10).uint32(1).finish();
    expect(() => decodeProtobuf(Buffer.concat([PROTOBUF_MAGIC, wrongWire]))).toThrow(/unable to decode protobuf envelope: invalid wire type 0/);
    const cut = Buffer.concat([PROTOBUF_MAGIC, envelope.subarray(0, 5)]);
    expect(() => decodeProtobuf(cut)).toThrow(/unable to decode protobuf envelope: index out of range/);
  });

  test('a truncated envelope is a DecodeError', () => {
    const full = body('v1', 'Namespace', 'k8s.io.api.core.v1.Namespace', { metadata: { name: 'x' } });
    expect(() => decodeProtobuf(full.subarray(0, full.length - 3))).toThrow(DecodeError);
  });

  test("stored objects of equal bytes share one frozen object; metadata is each object's own; a request's objects are its own", () => {
    const pod = (name: string) =>
      body('v1', 'Pod', 'k8s.io.api.core.v1.Pod', {
        metadata: { name, namespace: 'default' },
        spec: { containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 80 }] }], tolerations: [{ key: 'k', operator: 'Exists' }] },
      });
    type Decoded = { metadata: Record<string, unknown>; spec: { containers: Record<string, unknown>[] } };
    const a = decodeStoredProtobuf(pod('a')) as unknown as Decoded;
    const b = decodeStoredProtobuf(pod('b')) as unknown as Decoded;
    expect(a.metadata.name).toBe('a');
    expect(b.metadata.name).toBe('b');
    expect(b.spec.containers[0]).toBe(a.spec.containers[0]);
    expect(Object.isFrozen(a.spec.containers[0])).toBe(true);
    expect(Object.isFrozen(a.spec.containers[0].ports)).toBe(true);
    expect(() => {
      a.spec.containers[0].image = 'other';
    }).toThrow(TypeError);
    expect(b.spec.containers[0].image).toBe('nginx');
    expect(Object.isFrozen(a.metadata)).toBe(false);
    a.metadata.resourceVersion = '7';
    expect(b.metadata.resourceVersion).toBeUndefined();

    const request = decodeProtobuf(pod('c')) as unknown as Decoded;
    expect(request.spec.containers[0]).toEqual(a.spec.containers[0]);
    expect(request.spec.containers[0]).not.toBe(a.spec.containers[0]);
    request.spec.containers[0].image = 'changed by admission';
    expect((decodeProtobuf(pod('d')) as unknown as Decoded).spec.containers[0].image).toBe('nginx');
  });

  test('negative int64s, packed and unpacked repeated int64s', () => {
    // PodSecurityContext.supplementalGroups is field 4, repeated int64; written packed here, as proto3 encoders do.
    const securityContext = new Writer();
    securityContext
      .uint32((4 << 3) | 2)
      .fork()
      .int64(-3)
      .int64(2 ** 40)
      .ldelim();
    securityContext.uint32((4 << 3) | 0).int64(7);
    const spec = new Writer();
    spec.uint32((14 << 3) | 2).bytes(securityContext.finish());
    const meta = protoType('k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    const raw = new Writer();
    raw.uint32((1 << 3) | 2).bytes(meta.encode(meta.fromObject({ name: 'p', generation: -2 })).finish());
    raw.uint32((2 << 3) | 2).bytes(spec.finish());
    const unknown = protoType('k8s.io.apimachinery.pkg.runtime.Unknown');
    const envelope = unknown.encode(unknown.fromObject({ typeMeta: { apiVersion: 'v1', kind: 'Pod' }, raw: raw.finish() })).finish();
    const pod = decodeProtobuf(Buffer.concat([PROTOBUF_MAGIC, envelope])) as unknown as {
      metadata: { generation: number };
      spec: { securityContext: unknown };
    };
    expect(pod.metadata.generation).toBe(-2);
    expect(pod.spec.securityContext).toEqual({ supplementalGroups: [-3, 2 ** 40, 7] });
  });

  test('a field of a number the release does not know is skipped; a message cut short is a DecodeError', () => {
    const cm = protoType('k8s.io.api.core.v1.ConfigMap');
    const known = cm.encode(cm.fromObject({ metadata: { name: 'c' }, data: { a: 'b' } })).finish();
    const raw = new Writer();
    raw.uint32((99 << 3) | 2).string('from a later release');
    raw.uint32((98 << 3) | 0).uint64(1);
    const unknown = protoType('k8s.io.apimachinery.pkg.runtime.Unknown');
    const wrap = (bytes: Uint8Array) =>
      Buffer.concat([PROTOBUF_MAGIC, unknown.encode(unknown.fromObject({ typeMeta: { apiVersion: 'v1', kind: 'ConfigMap' }, raw: bytes })).finish()]);
    expect(decodeProtobuf(wrap(Buffer.concat([raw.finish(), known])))).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c' },
      data: { a: 'b' },
    });
    expect(() => decodeProtobuf(wrap(known.subarray(0, known.length - 2)))).toThrow(/unable to decode ConfigMap: index out of range/);
  });
});
