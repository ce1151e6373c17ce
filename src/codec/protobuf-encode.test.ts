import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Field, Type } from 'protobufjs';
import { STRING_LIST_MESSAGES } from '../generated/api-facts';
import { FIELD_FACTS } from '../schema/field-facts';
import { isInlineField, protoType } from '../schema/proto-loader';
import { deploymentOf } from '../../test/harness/large-deployment';
import { encodeMessage, encodeMessageInSlices } from './protobuf-encode';
import { decodeProtobuf } from './protobuf';
import { encodeProtobuf, messageTypeOf } from './protobuf-write';

/**
 * The encoder's bytes against protobufjs' own encoder (Type.encode of Type.fromObject), a writer
 * written independently of ours: each object's JSON is turned into protobufjs' object form with Go's
 * rules (zero values of non-pointer scalars, map keys in UTF-8 byte order, the JSON forms of times,
 * quantities, IntOrString and field sets), and both must write the same bytes. The release's
 * testdata (every kind with every field set) checks this converter against Go's own bytes first.
 */

type Json = Record<string, unknown>;

const META = '.k8s.io.apimachinery.pkg.apis.meta.v1';

/** Go's time.ParseDuration for the units the fixtures use, to nanoseconds. */
function durationNanos(value: string): number {
  const units: Record<string, number> = { ns: 1, us: 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };
  let total = 0;
  for (const [, amount, unit] of value.matchAll(/([0-9.]+)(ns|us|ms|s|m|h)/g)) total += Number(amount) * units[unit];
  return Math.round(value.startsWith('-') ? -total : total);
}

/** protobufjs' object form of messages whose JSON is not an object of their fields. */
const SPECIAL: Record<string, (value: unknown) => unknown> = {
  [`${META}.Time`]: (v) => (typeof v === 'string' && v !== '' ? { seconds: Math.floor(Date.parse(v) / 1000), nanos: 0 } : {}),
  [`${META}.MicroTime`]: (v) => {
    if (typeof v !== 'string' || v === '') return {};
    const micros = (/\.(\d+)/.exec(v)?.[1] ?? '').slice(0, 6).padEnd(6, '0');
    return { seconds: Math.floor(Date.parse(v) / 1000), nanos: Number(micros) * 1000 };
  },
  [`${META}.Duration`]: (v) => ({ duration: typeof v === 'string' ? durationNanos(v) : 0 }),
  [`${META}.FieldsV1`]: (v) => (v === null || v === undefined ? {} : { Raw: Buffer.from(JSON.stringify(v)) }),
  '.k8s.io.apimachinery.pkg.runtime.RawExtension': (v) => (v === null || v === undefined ? {} : { raw: Buffer.from(JSON.stringify(v)) }),
  '.k8s.io.apimachinery.pkg.util.intstr.IntOrString': (v) =>
    typeof v === 'string' ? { type: 1, intVal: 0, strVal: v } : { type: 0, intVal: Number(v ?? 0), strVal: '' },
  '.k8s.io.apimachinery.pkg.api.resource.Quantity': (v) => ({ string: v === null || v === undefined ? '0' : String(v) }),
  ...Object.fromEntries(STRING_LIST_MESSAGES.map((m) => [`.${m}`, (v: unknown) => ({ items: Array.isArray(v) ? v.map(String) : [] })])),
};

const NULL_IS_ZERO = new Set([`${META}.Time`, `${META}.MicroTime`]);

function scalarOf(field: Field, v: unknown): unknown {
  switch (field.type) {
    case 'string':
      return String(v);
    case 'bool':
      return v === true;
    case 'bytes':
      return v; // base64, as fromObject reads bytes
    default:
      return Number(v);
  }
}

const zeroOf = (field: Field): unknown => (field.type === 'string' ? '' : field.type === 'bool' ? false : 0);

/** Go's map order: keys sorted by their UTF-8 bytes (and none of the fixtures' keys is an array index, which JS objects order first). */
const goOrder = (keys: string[]): string[] => keys.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));

function toProtobufjs(type: Type, value: unknown): unknown {
  const special = SPECIAL[type.fullName];
  if (special) return special(value);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  const obj = value as Json;
  const facts = FIELD_FACTS[type.fullName.slice(1)] ?? {};
  const out: Json = {};
  for (const field of type.fieldsArray) {
    field.resolve();
    const message = field.resolvedType && 'fieldsArray' in field.resolvedType ? (field.resolvedType as Type) : null;
    const v = obj[field.name];
    if (message && isInlineField(type, field)) out[field.name] = toProtobufjs(message, obj);
    else if (field.map) {
      if (typeof v !== 'object' || v === null) continue;
      const entries = goOrder(Object.keys(v)).map((k): [string, unknown] => [k, (v as Json)[k]]);
      out[field.name] = Object.fromEntries(entries.map(([k, e]) => [k, message ? toProtobufjs(message, e) : scalarOf(field, e)]));
    } else if (field.repeated) {
      if (!Array.isArray(v)) continue;
      const items = v.filter((item) => item !== null && item !== undefined);
      out[field.name] = items.map((item) => (message ? toProtobufjs(message, item) : scalarOf(field, item)));
    } else if (message) {
      if (v !== undefined && (v !== null || NULL_IS_ZERO.has(message.fullName))) out[field.name] = toProtobufjs(message, v);
    } else if (v !== undefined && v !== null) out[field.name] = scalarOf(field, v);
    else if (field.type !== 'bytes' && !facts[field.name]?.pointer) out[field.name] = zeroOf(field);
  }
  return out;
}

/** protobufjs' bytes for the JSON of a `type` message. */
function referenceBytes(type: Type, value: unknown): Buffer {
  return Buffer.from(type.encode(type.fromObject(toProtobufjs(type, value) as Json)).finish());
}

const typeOf = (obj: Json): Type => messageTypeOf(obj)!;

interface Testdata {
  objects: Record<string, { json: Json; protobuf: string }>;
}

const testdata = JSON.parse(gunzipSync(readFileSync(path.resolve(__dirname, '../../test/fixtures/release/api-testdata.json.gz'))).toString('utf8')) as Testdata;
const releaseObjects = Object.entries(testdata.objects).filter(([, { json }]) => messageTypeOf(json) !== null);

test.each(releaseObjects)("%s: the reference writes the release's bytes, and the encoder the reference's", (_name, { json, protobuf }) => {
  const raw = Buffer.from(protobuf, 'base64');
  const reference = referenceBytes(typeOf(json), json);
  // Go's message, inside the runtime.Unknown envelope the release stores
  expect(raw.includes(reference) && reference.length > 0).toBe(true);
  expect(encodeMessage(typeOf(json), json).equals(reference)).toBe(true);
});

const TIME = '2026-11-29T06:30:00Z';
const container = (i: number) => ({ name: `c${i}`, image: 'x', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } } });

/** A pod with a field of each shape and scalar type, and strings of every UTF-8 length and width. */
const everyFieldPod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'every-field',
    namespace: 'default',
    generation: 9007199254740991, // int64, 2^53 - 1: eight bytes of varint
    deletionGracePeriodSeconds: -30, // int64, negative: ten bytes
    creationTimestamp: TIME,
    deletionTimestamp: '1969-12-31T23:59:59Z', // a negative seconds count
    labels: { 'app.kubernetes.io/name': 'web', zone: 'eu-west-1a', é: 'ü', ключ: '日本語', '😀': 'emoji' },
    annotations: {
      short: 'naïve café',
      exactly31: 'a'.repeat(30) + 'é',
      ascii127: 'b'.repeat(127),
      ascii128: 'c'.repeat(128),
      long: 'd'.repeat(20_000), // a three-byte length
      wide: '日本語のテキスト'.repeat(40),
      astral: '𝄞🎵😀'.repeat(30),
      '\uffff': 'sorts before any astral character in UTF-8',
    },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u', controller: true, blockOwnerDeletion: false }],
    finalizers: ['a/b', 'c/d', ''],
    managedFields: [
      { manager: 'm', operation: 'Update', apiVersion: 'v1', time: TIME, fieldsType: 'FieldsV1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {} } } } },
    ],
  },
  spec: {
    containers: [
      {
        name: 'app',
        image: 'registry.example/app:1',
        command: ['/bin/sh', '-c'],
        args: ['echo', 'ünïcödé', ''],
        ports: [{ containerPort: 8080, hostPort: 0, protocol: 'TCP' }],
        env: [
          { name: 'A', value: '' },
          { name: 'B', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        ],
        resources: { limits: { cpu: '1500m', memory: '1Gi' }, requests: { cpu: '0', 'example.com/gpu': '2' } },
        readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, initialDelaySeconds: 0, periodSeconds: 10 },
        livenessProbe: { tcpSocket: { port: 8080 }, terminationGracePeriodSeconds: -1 },
        securityContext: { runAsUser: 0, runAsNonRoot: false, privileged: true, capabilities: { add: ['NET_ADMIN'], drop: [] } },
        stdin: true,
      },
    ],
    volumes: [{ name: 'cfg', configMap: { name: 'c', defaultMode: 420, optional: false, items: [{ key: 'k', path: 'p', mode: -1 }] } }],
    activeDeadlineSeconds: 0,
    priority: -2147483648, // int32's least: ten bytes, as Go writes int32 sign-extended
    tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
    hostNetwork: true,
    nodeSelector: {},
    overhead: { cpu: '250m' },
  },
  status: {
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: TIME }],
    startTime: TIME,
    containerStatuses: [
      { name: 'app', ready: true, restartCount: 2147483647, state: { running: { startedAt: TIME } }, lastState: {}, image: 'x', imageID: 'y' },
    ],
  },
};

const fixtures: [string, Json][] = [
  ['a pod with a field of every shape and type', everyFieldPod],
  ['the 1,000-container Deployment', deploymentOf(Array.from({ length: 1000 }, (_, i) => container(i)))],
  [
    'a ConfigMap as a create stores it',
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'cm',
        namespace: 'bench',
        uid: '6f1c2a44-3b1e-4c5e-9a4f-0d8e2b7c9a11',
        creationTimestamp: TIME,
        labels: { bench: 'writes' },
        managedFields: [
          { manager: 'unknown', operation: 'Update', apiVersion: 'v1', time: TIME, fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { '.': {}, 'f:key': {} } } },
        ],
      },
      data: { key: 'x'.repeat(200), ключ: 'значение' },
      binaryData: { blob: Buffer.from([0, 1, 2, 0xff, 0xfe]).toString('base64'), empty: '' },
    },
  ],
  [
    'a Secret: bytes from base64',
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, data: { a: 'aHVudGVyMg==', b: Buffer.alloc(300, 7).toString('base64') }, type: 'Opaque' },
  ],
  [
    'an events.k8s.io Event: MicroTime',
    {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'default' },
      eventTime: '2026-11-29T06:30:00.123456Z',
      series: { count: 3, lastObservedTime: '2026-11-29T06:31:00.000001Z' },
      reportingController: 'c',
      reportingInstance: 'i',
      action: 'A',
      reason: 'R',
      regarding: { kind: 'Pod', name: 'p' },
      note: 'ünïcödé',
      type: 'Normal',
      deprecatedFirstTimestamp: TIME,
      deprecatedCount: 0,
    },
  ],
  [
    'a SubjectAccessReview: a map of string lists',
    {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: {},
      spec: { user: 'u', groups: ['g1', 'g2'], extra: { scopes: ['a', 'b'], empty: [] }, resourceAttributes: { verb: 'get', resource: 'pods' } },
      status: { allowed: true },
    },
  ],
  [
    'a Deployment: IntOrString of both forms, pointer scalars at zero',
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: {
        replicas: 0,
        progressDeadlineSeconds: 600,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } },
        selector: { matchLabels: { a: 'b' }, matchExpressions: [{ key: 'k', operator: 'In', values: ['v1', 'v2'] }] },
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: [container(0)] } },
      },
    },
  ],
  [
    'a Lease: MicroTime and int32 pointers',
    {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'l' },
      spec: {
        holderIdentity: 'h',
        leaseDurationSeconds: 15,
        acquireTime: '2026-11-29T06:30:00.000000Z',
        renewTime: '2026-11-29T06:30:05.5Z',
        leaseTransitions: 0,
      },
    },
  ],
];

test.each(fixtures)("%s: the encoder writes protobufjs' bytes", (_name, obj) => {
  const ours = encodeMessage(typeOf(obj), obj);
  expect(ours.equals(referenceBytes(typeOf(obj), obj))).toBe(true);
});

test.each(fixtures)('%s: encoded in slices, the same bytes', async (_name, obj) => {
  expect(Buffer.from(await encodeMessageInSlices(typeOf(obj), obj, async () => {})).equals(encodeMessage(typeOf(obj), obj))).toBe(true);
});

test('every string reads back as written, whatever its width and length', () => {
  const decoded = decodeProtobuf(encodeProtobuf(everyFieldPod)) as typeof everyFieldPod;
  expect(decoded.metadata.labels).toEqual(everyFieldPod.metadata.labels);
  expect(decoded.metadata.annotations).toEqual(everyFieldPod.metadata.annotations);
  expect(decoded.spec.containers[0].args).toEqual(everyFieldPod.spec.containers[0].args);
});

describe('what protobufjs cannot say', () => {
  const cm = (data: Json) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data });

  test('a lone surrogate is written as U+FFFD, as Go holds a string decoded from JSON', () => {
    for (const lone of ['\ud800', 'x'.repeat(40) + '\udc00']) {
      const bytes = encodeProtobuf(cm({ k: lone }));
      expect(bytes.includes(Buffer.from(lone.replace(/[\ud800-\udfff]/, '\ufffd')))).toBe(true);
      expect(bytes.includes(Buffer.from([0xef, 0xbf, 0xbd]))).toBe(true);
    }
  });

  test('map keys in Go order: "10" before "9" (JS objects put array indexes first), U+FFFF before an astral character', () => {
    const bytes = encodeProtobuf(cm({ '9': 'nine', '10': 'ten', '😀': 'astral', '\uffff': 'bmp' }));
    const at = (s: string) => bytes.indexOf(Buffer.from(s));
    expect(at('ten')).toBeLessThan(at('nine'));
    expect(at('nine')).toBeLessThan(at('bmp'));
    expect(at('bmp')).toBeLessThan(at('astral'));
  });
});

describe("FieldsV1: the bytes of JSON.stringify's text", () => {
  const fieldsV1 = protoType('k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1');
  const trees: [string, unknown][] = [
    ['keys to escape', { 'k:{"name":"a\\b"}': {}, 'v:"tab\t"': {}, 'f:ünï': { '.': {}, 'f:😀': {} }, 'f:\ud800': {}, 'f:\u0001': {} }],
    ['array-index keys, which objects hold first', { 'f:b': {}, '10': {}, '9': {} }],
    ['nested', { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"c"}': { '.': {}, 'f:image': {} } } } } } }],
    ['empty', {}],
    ['a leaf that is not an object', { 'f:a': { 'f:b': {} }, 'f:c': 1 }],
    ['a list in it', { 'f:a': [{}] }],
    ['a list', [{ 'f:a': {} }]],
  ];

  test.each(trees)('%s', (_name, tree) => {
    // twice: the second time from the quoted keys kept
    for (let i = 0; i < 2; i++)
      expect(
        encodeMessage(fieldsV1, tree).equals(
          Buffer.concat([Buffer.from([0x0a]), Buffer.from([Buffer.byteLength(JSON.stringify(tree))]), Buffer.from(JSON.stringify(tree))]),
        ),
      ).toBe(true);
  });

  test('a tree written from JSON.stringify inside an object: what the fast path had written is undone', () => {
    const cm = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'c',
        managedFields: [{ manager: 'm', operation: 'Update', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} }, 'f:x': 'leaf' } }],
      },
      data: { a: 'b' },
    };
    expect(encodeMessage(typeOf(cm), cm).equals(referenceBytes(typeOf(cm), cm))).toBe(true);
  });
});
