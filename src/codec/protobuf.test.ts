import { DecodeError } from './decode-error';
import { decodeProtobuf, PROTOBUF_MAGIC } from './protobuf';
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

  test('a truncated envelope is a DecodeError', () => {
    const full = body('v1', 'Namespace', 'k8s.io.api.core.v1.Namespace', { metadata: { name: 'x' } });
    expect(() => decodeProtobuf(full.subarray(0, full.length - 3))).toThrow(DecodeError);
  });
});
