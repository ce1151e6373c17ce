import type { KubeObject } from '../../api/types';
import { PROTOBUF_MAGIC } from '../../codec/protobuf';
import { StorageCodec } from './storage-codec';

const configMap = (): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'c', namespace: 'default', uid: 'u-1', resourceVersion: '', creationTimestamp: '2024-05-06T07:08:09Z', labels: { b: '2', a: '1' } },
  data: { k: 'v' },
});

describe('StorageCodec', () => {
  const protobuf = new StorageCodec('application/vnd.kubernetes.protobuf');

  test('built-in kinds are k8s\\0 envelopes that decode to what Go would print, the resourceVersion slot in its place', () => {
    const bytes = protobuf.encode(configMap());
    expect(bytes.subarray(0, 4)).toEqual(PROTOBUF_MAGIC);
    const back = protobuf.decode(bytes);
    expect(back).toEqual({ ...configMap(), immutable: undefined });
    expect(Object.keys(back)).toEqual(['kind', 'apiVersion', 'metadata', 'data']);
    expect(Object.keys(back.metadata)).toEqual(['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp', 'labels']);
    // A node-port bitmap (core/v1 RangeAllocation) too, as kube stores it.
    const bitmap = { apiVersion: 'v1', kind: 'RangeAllocation', metadata: { creationTimestamp: null }, range: '30000-32767', data: 'AAE=' };
    expect(protobuf.decode(protobuf.encode(bitmap as unknown as KubeObject))).toMatchObject({ range: '30000-32767', data: 'AAE=' });
  });

  test('an object and the same object with the zero values Go writes encode to the same bytes', () => {
    const pod = (): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } });
    const decoded = protobuf.decode(protobuf.encode(pod()));
    expect(decoded.status).toEqual({});
    expect(protobuf.encode(decoded)).toEqual(protobuf.encode(pod()));
  });

  test('custom resources, CRDs and APIServices stay JSON', () => {
    const kinds = [
      { apiVersion: 'example.com/v1', kind: 'Widget' },
      { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' },
      { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService' },
    ];
    for (const k of kinds) {
      const obj = { ...k, metadata: { name: 'x' }, spec: { extra: { a: ['b'] } } } as KubeObject;
      expect(protobuf.encodingOf(obj)).toBe('json');
      expect(JSON.parse(protobuf.encode(obj).toString())).toEqual(obj);
    }
  });

  test('a CSR is Protobuf, its spec.extra (map<string, ExtraValue>) kept', () => {
    const csr = {
      apiVersion: 'certificates.k8s.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { name: 'x' },
      spec: { request: 'AQ==', signerName: 'example.com/s', username: 'u', extra: { scopes: ['a', 'b'], empty: [] } },
    } as KubeObject;
    expect(protobuf.encodingOf(csr)).toBe('protobuf');
    expect(protobuf.decode(protobuf.encode(csr)).spec).toMatchObject({ username: 'u', extra: { scopes: ['a', 'b'], empty: [] } });
  });

  test('every setting reads every encoding; JSON and YAML write their own', () => {
    const json = new StorageCodec('application/json');
    const yaml = new StorageCodec('application/yaml');
    const asProtobuf = protobuf.encode(configMap());
    const asJson = json.encode(configMap());
    const asYaml = yaml.encode(configMap());
    expect(json.encodingOf(configMap())).toBe('json');
    expect(asJson.toString()).toBe(JSON.stringify(configMap()));
    expect(asYaml.toString()).toMatch(/^apiVersion: v1\n/);
    for (const codec of [json, yaml, protobuf]) {
      expect(codec.decode(asProtobuf).data).toEqual({ k: 'v' });
      expect(codec.decode(asJson).data).toEqual({ k: 'v' });
    }
    expect(yaml.decode(asYaml)).toEqual(configMap());
    expect(() => protobuf.decode(Buffer.from('garbage{'))).toThrow(/^couldn't get version\/kind; json parse error: /);
  });
});
