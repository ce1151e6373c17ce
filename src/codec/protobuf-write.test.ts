import { decodeProtobuf } from './protobuf';
import { encodeProtobuf, encodeProtobufInSlices, encodeProtobufWatchEvent, protobufListParts } from './protobuf-write';
import { encodeMessage } from './protobuf-encode';
import { deploymentOf } from '../../test/harness/large-deployment';

/**
 * Golden bytes written by hand from the field numbers of k8s.io/api core/v1 and
 * k8s.io/apimachinery (generated.proto), following the Go marshallers: fields in number order,
 * non-pointer scalars always written (zero included), pointer fields and absent messages not.
 */
const bytes = (...parts: (number | string | number[])[]): number[] =>
  parts.flatMap((p) => (typeof p === 'number' ? [p] : typeof p === 'string' ? [...Buffer.from(p)] : p));
/** A length-delimited field: its tag byte(s), the length (short bodies only), the body. */
const ld = (tag: number | number[], ...body: (number | string | number[])[]): number[] => {
  const b = bytes(...body);
  if (b.length > 127) throw new Error('golden helper handles short fields only');
  return [...(typeof tag === 'number' ? [tag] : tag), b.length, ...b];
};

describe('golden bytes', () => {
  test('a small Pod, as kube-apiserver writes it', () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'web',
        namespace: 'default',
        uid: 'u1',
        resourceVersion: '5',
        creationTimestamp: '2024-01-02T03:04:05Z',
        labels: { app: 'web' },
      },
      spec: { containers: [{ name: 'c', image: 'nginx', resources: {} }] },
      status: { phase: 'Pending' },
    };
    const objectMeta = bytes(
      ld(0x0a, 'web'), // 1 name
      ld(0x12), // 2 generateName ""
      ld(0x1a, 'default'), // 3 namespace
      ld(0x22), // 4 selfLink ""
      ld(0x2a, 'u1'), // 5 uid
      ld(0x32, '5'), // 6 resourceVersion
      [0x38, 0x00], // 7 generation 0
      ld(0x42, [0x08, 0xa5, 0xfa, 0xcd, 0xac, 0x06], [0x10, 0x00]), // 8 creationTimestamp {seconds 1704164645, nanos 0}
      ld(0x5a, ld(0x0a, 'app'), ld(0x12, 'web')), // 11 labels entry {key 1, value 2}
    );
    const container = bytes(
      ld(0x0a, 'c'), // 1 name
      ld(0x12, 'nginx'), // 2 image
      ld(0x2a), // 5 workingDir ""
      ld(0x42), // 8 resources {}
      ld(0x6a), // 13 terminationMessagePath ""
      ld(0x72), // 14 imagePullPolicy ""
      [0x80, 0x01, 0x00], // 16 stdin false
      [0x88, 0x01, 0x00], // 17 stdinOnce false
      [0x90, 0x01, 0x00], // 18 tty false
      ld([0xa2, 0x01]), // 20 terminationMessagePolicy ""
    );
    const podSpec = bytes(
      ld(0x12, container), // 2 containers
      ld(0x1a), // 3 restartPolicy ""
      ld(0x32), // 6 dnsPolicy ""
      ld(0x42), // 8 serviceAccountName ""
      ld(0x4a), // 9 serviceAccount ""
      ld(0x52), // 10 nodeName ""
      [0x58, 0x00], // 11 hostNetwork
      [0x60, 0x00], // 12 hostPID
      [0x68, 0x00], // 13 hostIPC
      ld([0x82, 0x01]), // 16 hostname ""
      ld([0x8a, 0x01]), // 17 subdomain ""
      ld([0x9a, 0x01]), // 19 schedulerName ""
      ld([0xc2, 0x01]), // 24 priorityClassName ""
    );
    const podStatus = bytes(
      ld(0x0a, 'Pending'), // 1 phase
      ld(0x1a), // 3 message
      ld(0x22), // 4 reason
      ld(0x2a), // 5 hostIP
      ld(0x32), // 6 podIP
      ld(0x4a), // 9 qosClass
      ld(0x5a), // 11 nominatedNodeName
      ld(0x72), // 14 resize
      [0x88, 0x01, 0x00], // 17 observedGeneration 0
    );
    const raw = bytes(ld(0x0a, objectMeta), ld(0x12, podSpec), ld(0x1a, podStatus));
    const rawField = [0x12, ...varint(raw.length), ...raw];
    const expected = bytes(
      [0x6b, 0x38, 0x73, 0x00], // "k8s\0"
      ld(0x0a, ld(0x0a, 'v1'), ld(0x12, 'Pod')), // Unknown.typeMeta {apiVersion 1, kind 2}
      rawField, // Unknown.raw
      [0x1a, 0x00], // Unknown.contentEncoding ""
      [0x22, 0x00], // Unknown.contentType ""
    );
    expect([...encodeProtobuf(pod)]).toEqual(expected);
  });

  test('a watch event frame: 4-byte big-endian length, WatchEvent {type 1, object 2 {raw 1}}', () => {
    const body = Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x01]);
    const event = bytes(ld(0x0a, 'ADDED'), ld(0x12, ld(0x0a, [...body])));
    expect([...encodeProtobufWatchEvent('ADDED', body)]).toEqual([0, 0, 0, event.length, ...event]);
  });

  test('IntOrString, Quantity, bytes and pointer scalars', () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { replicas: 0, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } } },
    };
    const decoded = decodeProtobuf(encodeProtobuf(deployment));
    expect(decoded.spec).toMatchObject(deployment.spec);
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { b: 'aHVudGVyMg==', a: '' }, type: 'Opaque' };
    const raw = encodeProtobuf(secret);
    // Secret.data (field 2) entries sorted by key, values as raw bytes.
    expect(raw.includes(Buffer.from(bytes(ld(0x12, ld(0x0a, 'a'), ld(0x12)))))).toBe(true);
    expect(raw.includes(Buffer.from(bytes(ld(0x12, ld(0x0a, 'b'), ld(0x12, 'hunter2')))))).toBe(true);
    expect(decodeProtobuf(raw)).toEqual(secret);
  });

  test('lists written in parts are the bytes of the whole list', () => {
    const list = {
      apiVersion: 'v1',
      kind: 'ConfigMapList',
      metadata: { resourceVersion: '10', continue: 'abc', remainingItemCount: 3 },
      items: [1, 2, 3].map((i) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` }, data: { i: String(i) } })),
    };
    const parts = protobufListParts(list, (item, type) => encodeMessage(type, item));
    expect(Buffer.concat([parts.head, ...parts.items, parts.tail])).toEqual(encodeProtobuf(list));
    // Protobuf carries no kind on list items; the list's typeMeta names them.
    expect(decodeProtobuf(encodeProtobuf(list))).toEqual({ ...list, items: list.items.map(({ metadata, data }) => ({ metadata, data })) });
  });
});

function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}

describe('in slices (issue 25)', () => {
  test("a Deployment's long lists are encoded a few items per slice, to encodeProtobuf's bytes", async () => {
    const container = (i: number) => ({ name: `c${i}`, image: 'x', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } } });
    // the field set of the 1,000 containers: its JSON is written ahead too, in slices
    const deployment = deploymentOf(Array.from({ length: 1000 }, (_, i) => container(i)));
    let slices = 0;
    const sliced = await encodeProtobufInSlices(deployment, async () => void slices++);
    expect(slices).toBeGreaterThan((2 * 1000) / 64);
    expect(sliced.equals(encodeProtobuf(deployment))).toBe(true);
    // a short list is encoded with the whole, in one slice
    let few = 0;
    const small = { ...deployment, spec: { ...deployment.spec, template: { ...deployment.spec.template, spec: { containers: [container(0)] } } } };
    expect((await encodeProtobufInSlices(small, async () => void few++)).equals(encodeProtobuf(small))).toBe(true);
    expect(few).toBe(0);
  });
});
