import { request } from 'node:http';

/** A small seeded generator (mulberry32), so that a failure can be replayed from its seed. */
export function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Request paths of every kind kapi serves, resource paths under namespace `ns`. */
export function fuzzPaths(ns: string): string[] {
  const NS = `/api/v1/namespaces/${ns}`;
  return [
    `${NS}/configmaps`,
    `${NS}/configmaps/target`,
    `${NS}/configmaps/target/status`,
    `${NS}/pods`,
    `${NS}/pods/p/binding`,
    `${NS}/pods/p/eviction`,
    `${NS}/secrets`,
    `${NS}/serviceaccounts/default/token`,
    '/api/v1/namespaces',
    `/api/v1/namespaces/${ns}`,
    `/api/v1/namespaces/${ns}/finalize`,
    '/api/v1/nodes',
    `/apis/apps/v1/namespaces/${ns}/deployments`,
    `/apis/apps/v1/namespaces/${ns}/deployments/d/scale`,
    '/apis/rbac.authorization.k8s.io/v1/clusterroles',
    '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
    '/apis/authentication.k8s.io/v1/tokenreviews',
    '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    '/api',
    '/api/v1',
    '/apis',
    '/apis/apps',
    '/version',
    '/healthz',
    '/readyz/etcd',
    '/openapi/v2',
    '/openapi/v3',
    '/metrics',
    '/',
  ];
}

const SEGMENT_NOISE = ['%', '%zz', '%2F', '%00', '..', '.', '', '%C3%A9', '~', ';x', 'a'.repeat(300), '%252F', 'watch', '*', ':'];

const QUERY_KEYS = [
  'watch',
  'limit',
  'continue',
  'resourceVersion',
  'resourceVersionMatch',
  'labelSelector',
  'fieldSelector',
  'timeout',
  'pretty',
  'fieldManager',
  'fieldValidation',
  'propagationPolicy',
  'gracePeriodSeconds',
  'allowWatchBookmarks',
  'sendInitialEvents',
  'includeObject',
  'force',
  'orphanDependents',
  'verbose',
  'exclude',
  'hash',
  'x',
];
const QUERY_VALUES = [
  '',
  '0',
  '1',
  '-1',
  'true',
  'false',
  'x',
  '%',
  '%zz',
  '99999999999999999999',
  '9223372036854775807',
  'a,b',
  'a!=b',
  'a in (b',
  'metadata.name=x',
  'Strict',
  'Ignore',
  'Orphan',
  'Sometimes',
  'Exact',
  'NotOlderThan',
  'All',
  '1s',
  '-5s',
  'Object',
  'None',
  'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJ4In0',
  '\u00e9'.repeat(3),
  'b'.repeat(2000),
];

/** Media types for Accept and Content-Type: every one kapi reads or writes, and some it does not. */
export const FUZZ_MEDIA = [
  'application/json',
  'application/yaml',
  'application/vnd.kubernetes.protobuf',
  'application/cbor',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/json-patch+json',
  'application/apply-patch+yaml',
  'application/apply-patch+cbor',
  'text/plain',
  'application/json;charset=latin1',
  'garbage',
  '*/*',
  'application/json;as=Table;v=v1;g=meta.k8s.io',
  'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
  'application/vnd.kubernetes.protobuf;stream=watch',
  'application/json;q=x',
  'application/json, application/yaml;q=0.5',
];

/**
 * A well-formed body of each media type the fuzzers send: `object` read back from the server in
 * that encoding, a JSON patch of it, and the patch types that take an object's own encoding.
 */
export async function validBodies(objectUrl: string, encodings: string[]): Promise<Record<string, Buffer>> {
  const valid: Record<string, Buffer> = {};
  for (const accept of encodings) valid[accept] = Buffer.from(await (await fetch(objectUrl, { headers: { Accept: accept } })).arrayBuffer());
  valid['application/json-patch+json'] = Buffer.from('[{"op":"replace","path":"/data/k","value":"w"}]');
  valid['application/merge-patch+json'] = valid['application/json'];
  valid['application/strategic-merge-patch+json'] = valid['application/json'];
  valid['application/apply-patch+yaml'] = valid['application/yaml'];
  if (valid['application/cbor']) valid['application/apply-patch+cbor'] = valid['application/cbor'];
  return valid;
}

/** A YAML alias bomb: nine levels of nine references each. */
export function yamlAliasBomb(): string {
  const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < 10; i++)
    lines.push(
      `a${i}: &a${i} [${Array(9)
        .fill(`*a${i - 1}`)
        .join(', ')}]`,
    );
  return lines.join('\n');
}

/** Malformed requests from one seed: paths, query strings and bodies. */
export class Fuzzer {
  readonly random: () => number;

  constructor(seed: number) {
    this.random = rng(seed);
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)];
  }

  chance(p: number): boolean {
    return this.random() < p;
  }

  /** One of `paths`, with up to two segments inserted, removed or suffixed with noise. */
  path(paths: readonly string[]): string {
    let segments = this.pick(paths).split('/').slice(1);
    const edits = this.chance(0.5) ? 0 : 1 + Math.floor(this.random() * 2);
    for (let i = 0; i < edits; i++) {
      const at = Math.floor(this.random() * (segments.length + 1));
      if (this.chance(0.4)) segments.splice(at, 0, this.pick(SEGMENT_NOISE));
      else if (this.chance(0.5)) segments.splice(at, 1);
      else segments[Math.min(at, segments.length - 1)] += this.pick(SEGMENT_NOISE);
    }
    if (this.chance(0.05)) segments = ['', ...segments];
    return `/${segments.join('/')}`;
  }

  /** Up to three parameters kube reads, with odd values, some not escaped. */
  query(): string {
    const pairs: string[] = [];
    const n = Math.floor(this.random() * 4);
    for (let i = 0; i < n; i++) {
      const key = this.pick(QUERY_KEYS);
      const value = this.pick(QUERY_VALUES);
      pairs.push(this.chance(0.1) ? key : `${encodeURIComponent(key)}=${this.chance(0.8) ? encodeURIComponent(value) : value.replace(/[^\x21-\x7e]/g, '')}`);
    }
    return pairs.join('&');
  }

  /** Valid encodings of one object in each format, mutated: cut, bytes flipped, or other formats' bytes. */
  body(valid: Record<string, Buffer>, contentType: string): Buffer {
    const base = valid[contentType.split(';')[0]] ?? this.pick(Object.values(valid));
    const out = Buffer.from(base);
    switch (Math.floor(this.random() * 7)) {
      case 0:
        return out.subarray(0, Math.floor(this.random() * out.length));
      case 1: {
        for (let i = 0; i < 1 + this.random() * 8; i++) out[Math.floor(this.random() * out.length)] = Math.floor(this.random() * 256);
        return out;
      }
      case 2:
        return Buffer.from(Array.from({ length: Math.floor(this.random() * 200) }, () => Math.floor(this.random() * 256)));
      case 3:
        return Buffer.from(this.pick(Object.values(valid)));
      case 4:
        return Buffer.from(yamlAliasBomb());
      case 5:
        // Shared references (CBOR tags 28, 29), and a length far past the body (Protobuf).
        return this.chance(0.5)
          ? Buffer.from([0xd9, 0xd9, 0xf7, 0x82, 0xd8, 0x1c, 0x82, 0x01, 0x02, 0xd8, 0x1d, 0x00])
          : Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x12, 0xff, 0xff, 0xff, 0xff, 0x0f]);
      default:
        return out;
    }
  }
}

export interface FuzzAnswer {
  code: number;
  contentType: string;
  body: string;
}

/** One request, with whatever headers and bytes it has; a string when it got no answer, null when node's client refused to send it. */
export function sendRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer | null,
  timeoutMs = 10_000,
): Promise<FuzzAnswer | string | null> {
  return new Promise((resolve) => {
    let req;
    try {
      req = request({ host: '127.0.0.1', port, method, path, headers, agent: false, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ code: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks).toString() }),
        );
        res.on('error', (err) => resolve(`response error ${err.message}`));
      });
    } catch {
      resolve(null);
      return;
    }
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    req.on('error', (err) => resolve(`request error ${err.message}`));
    req.end(body ?? undefined);
  });
}

/**
 * A 5xx that is kube-apiserver's own answer to client input, where the error is no Status and
 * ErrorToAPIStatus answers 500 with its message: a get or watch from a resourceVersion that is no
 * uint64 (Cacher.Get and Cacher.Watch return ParseResourceVersion's storage error, in any encoding
 * the client asked for), and a strategic merge patch that strategicpatch refuses (a JSON Status).
 */
export function isKubesOwn500(method: string, code: number, body: string): boolean {
  if (code !== 500) return false;
  if (method === 'GET') return /resourceVersion: Invalid value: .*strconv\.ParseUint: /.test(body);
  // strategicpatch's own errors, which interpretStrategicMergePatchError leaves to ErrorToAPIStatus: a 500 without a reason.
  return method === 'PATCH' && !/"reason":/.test(body) && STRATEGIC_PATCH_ERROR.test(body);
}

const STRATEGIC_PATCH_ERROR =
  /"message":"(unknown patch type: |map: .* does not contain declared merge key: |merging lists cannot yet be specified in the patch|expected a (\[\]|map\[string\])interface \{\}, but received a |list element types are not identical: |The order in patch list:)/;
