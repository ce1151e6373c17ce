import yaml from 'js-yaml';
import { rng } from '../harness/fuzz';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

/**
 * Hundreds of malformed or hostile bodies against every write verb: each must be answered with a
 * 4xx Status, and the store must not change (every pod keeps its resourceVersion).
 */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
const NS = '/api/v1/namespaces/default';

const random = rng(20261121);
const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)];

const VALID_POD = JSON.stringify({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'fuzzed', labels: { app: 'x' } },
  spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }], env: [{ name: 'A', value: 'b' }] }] },
});

const WRONG_VALUES: unknown[] = [1, -1.5, true, 'str', null, [], {}, [1, 'a'], { x: { y: 1 } }, 1e308, ''];

function deep(levels: number, open: string, close: string, inner = '1'): string {
  return open.repeat(levels) + inner + close.repeat(levels);
}

function parses(raw: string): boolean {
  try {
    JSON.parse(raw);
    return true;
  } catch {
    return false;
  }
}

/** Bodies that are not JSON at all, or not quite (a cut or a flipped byte that still parses is left out). */
function malformed(): string[] {
  const out: string[] = [
    '',
    ' ',
    '{',
    '}',
    '{"a":}',
    '{"metadata":{"name":"x"},}',
    'null',
    'true',
    '42',
    '"text"',
    '[]',
    '[{}]',
    "{'a':1}",
    '{"a":NaN}',
    '{"a":1} {"b":2}',
    '\uFEFF{}',
    '{"a":"\\x"}',
    '{"a":"\\ud800"}',
  ];
  for (let i = 0; i < 60; i++) {
    const cut = Math.floor(random() * VALID_POD.length);
    out.push(VALID_POD.slice(0, cut));
    const at = Math.floor(random() * VALID_POD.length);
    out.push(VALID_POD.slice(0, at) + pick(['{', '}', '"', ',', ':', ']', '\u0000', '\\']) + VALID_POD.slice(at + 1));
  }
  return out.filter((raw) => !(raw.startsWith('{"apiVersion"') && parses(raw)));
}

type Kind = 'string' | 'integer' | 'boolean' | 'object' | 'array';

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isSafeInteger(v) && Math.abs(v) < 2 ** 31 ? 'integer' : 'number';
  return typeof v;
}

/** Sets `path` in a copy of `base` to each value whose JSON type the field cannot hold. */
function mistyped(base: string, paths: [string[], Kind][]): string[] {
  const out: string[] = [];
  for (const [path, expected] of paths) {
    for (const value of WRONG_VALUES) {
      if (value === null || kindOf(value) === expected || (expected === 'integer' && kindOf(value) === 'integer')) continue;
      const obj = JSON.parse(base);
      let node = obj;
      for (const key of path.slice(0, -1)) node = node[key] ??= {};
      node[path[path.length - 1]] = value;
      out.push(JSON.stringify(obj));
    }
  }
  return out;
}

/** Objects of the right shape with a value of the wrong type where a typed field lives. */
function wrongTypes(): string[] {
  return mistyped(VALID_POD, [
    [['metadata', 'name'], 'string'],
    [['metadata', 'labels'], 'object'],
    [['metadata', 'annotations'], 'object'],
    [['metadata', 'finalizers'], 'array'],
    [['metadata', 'ownerReferences'], 'array'],
    [['spec'], 'object'],
    [['spec', 'containers'], 'array'],
    [['spec', 'containers', '0'], 'object'],
    [['spec', 'containers', '0', 'name'], 'string'],
    [['spec', 'containers', '0', 'ports', '0', 'containerPort'], 'integer'],
    [['spec', 'containers', '0', 'env'], 'array'],
    [['spec', 'terminationGracePeriodSeconds'], 'integer'],
    [['spec', 'hostNetwork'], 'boolean'],
    [['spec', 'nodeSelector'], 'object'],
  ]);
}

/** DeleteOptions with a wrong type, or bodies that are not DeleteOptions at all. */
function badDeleteOptions(): string[] {
  const base = JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1' });
  return [
    ...mistyped(base, [
      [['gracePeriodSeconds'], 'integer'],
      [['preconditions'], 'object'],
      [['preconditions', 'uid'], 'string'],
      [['orphanDependents'], 'boolean'],
      [['propagationPolicy'], 'string'],
      [['dryRun'], 'array'],
    ]),
    JSON.stringify({ kind: 'DeleteOptions', propagationPolicy: 'Sometimes' }),
    JSON.stringify({ kind: 'DeleteOptions', dryRun: ['Maybe'] }),
    JSON.stringify({ kind: 'DeleteOptions', orphanDependents: true, propagationPolicy: 'Orphan' }),
    VALID_POD,
    '{"kind":"Secret"}',
  ];
}

/** Deep nesting, huge strings, prototype-pollution keys, other kinds. */
function hostile(): string[] {
  const pod = JSON.parse(VALID_POD);
  const withSpec = (extra: string) => VALID_POD.replace('"spec":{', `"spec":{${extra},`);
  return [
    deep(5000, '[', ']'),
    deep(5000, '{"a":', '}'),
    withSpec(`"x":${deep(3000, '[', ']')}`),
    VALID_POD.replace('"labels":{"app":"x"}', `"labels":{"app":"x"},"annotations":{"a":${deep(2000, '{"b":', '}', '"c"')}}`),
    JSON.stringify({ ...pod, metadata: { ...pod.metadata, name: 'x'.repeat(2_500_000) } }),
    JSON.stringify({ ...pod, metadata: { ...pod.metadata, annotations: { big: 'y'.repeat(2_000_000) } } }),
    JSON.stringify({ ...pod, metadata: { ...pod.metadata, labels: { ['k'.repeat(300)]: 'v' } } }),
    JSON.stringify({ ...pod, spec: { ...pod.spec, containers: Array.from({ length: 3000 }, () => ({ name: 'same', image: 'x' })) } }),
    '{"__proto__":{"polluted":"yes"},"metadata":{"name":"proto-1"},"spec":{"containers":[{"name":"c","image":"x"}]}}',
    '{"metadata":{"name":"proto-2","__proto__":{"polluted":"yes"}},"spec":{"containers":[{"name":"c","image":"x"}]}}',
    '{"metadata":{"name":"proto-3"},"spec":{"__proto__":{"polluted":"yes"},"containers":[{"name":"c","image":"x","__proto__":{"polluted":"yes"}}]}}',
    '{"constructor":{"prototype":{"polluted":"yes"}},"metadata":{"name":"proto-4"},"spec":{"containers":[{"name":"c","image":"x"}]}}',
    '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"wrong-kind"}}',
    '{"apiVersion":"apps/v1","kind":"Pod","metadata":{"name":"wrong-version"}}',
    '{"apiVersion":7,"kind":"Pod","metadata":{"name":"bad-version-type"}}',
    '{"metadata":{"name":"Upper Case"},"spec":{"containers":[{"name":"c","image":"x"}]}}',
    '{"metadata":{"name":"no-containers"},"spec":{}}',
    '{"metadata":{"namespace":"other","name":"wrong-ns"},"spec":{"containers":[{"name":"c","image":"x"}]}}',
  ];
}

/** The pods and their versions: what a hostile body could change (the etcd revision moves with lease renewals). */
async function revision(): Promise<string> {
  const items = (await api.get('/api/v1/pods')).body.items as { metadata: { namespace: string; name: string; resourceVersion: string } }[];
  return items.map((p) => `${p.metadata.namespace}/${p.metadata.name}@${p.metadata.resourceVersion}`).join(',');
}

beforeAll(async () => {
  server = await startTestServer();
  api = new Api(server.url);
  const created = await api.post(`${NS}/pods`, JSON.parse(VALID_POD));
  expect(created.status).toBe(201);
});

afterAll(async () => {
  await server.close();
});

const BODIES = [...malformed(), ...wrongTypes(), ...hostile()];
// json.Serializer.Decode reads null as empty DeleteOptions: a delete kube-apiserver carries out.
const DELETE_BODIES = [...malformed().filter((raw) => raw !== '' && raw !== 'null' && !(parses(raw) && /^\{"a"/.test(raw))), ...badDeleteOptions()];

test('there are hundreds of bodies', () => {
  expect(BODIES.length).toBeGreaterThan(200);
  expect(DELETE_BODIES.length).toBeGreaterThan(150);
});

const VERBS: [string, string, string][] = [
  ['POST', `${NS}/pods?fieldValidation=Strict`, 'application/json'],
  ['PUT', `${NS}/pods/fuzzed?fieldValidation=Strict`, 'application/json'],
  ['PATCH', `${NS}/pods/fuzzed?fieldValidation=Strict`, 'application/merge-patch+json'],
  ['PATCH', `${NS}/pods/fuzzed?fieldValidation=Strict`, 'application/strategic-merge-patch+json'],
  ['PATCH', `${NS}/pods/fuzzed?fieldValidation=Strict`, 'application/json-patch+json'],
  ['PATCH', `${NS}/pods/fuzzed?fieldValidation=Strict&fieldManager=fuzz`, 'application/apply-patch+yaml'],
  ['DELETE', `${NS}/pods/fuzzed`, 'application/json'],
];

function appliesNullLabels(raw: string): boolean {
  try {
    const labels = (yaml.load(raw) as { metadata?: { labels?: Record<string, unknown> } } | null)?.metadata?.labels;
    return !!labels && typeof labels === 'object' && Object.values(labels).every((v) => v === null);
  } catch {
    return false;
  }
}

/** Bodies that are valid for a verb are not hostile to it: an empty JSON patch, an empty delete. */
function bodiesFor(method: string, contentType: string): string[] {
  if (method === 'DELETE') return DELETE_BODIES;
  if (contentType === 'application/json-patch+json') return BODIES.filter((raw) => raw !== '[]' && raw !== 'null');
  // strategicPatchObject decodes null as an empty patch map.
  if (contentType === 'application/strategic-merge-patch+json') return BODIES.filter((raw) => raw !== 'null');
  // YAML reads some mutations as a valid configuration whose labels are null ("remove if present"): an apply kube-apiserver accepts too.
  if (contentType === 'application/apply-patch+yaml') return BODIES.filter((raw) => !appliesNullLabels(raw));
  return BODIES;
}

test.each(VERBS)('%s %s (%s): every hostile body is a failure Status and changes nothing', async (method, path, contentType) => {
  const before = await revision();
  const unexpected: string[] = [];
  for (const raw of bodiesFor(method, contentType)) {
    const started = Date.now();
    const res = await api.request(method, path, { raw, contentType });
    if (Date.now() - started > 5000) unexpected.push(`slow (${Date.now() - started} ms) for ${raw.slice(0, 80)}`);
    // strategicpatch's own errors (a list of another item type than the live one's) are no Status to kube: ErrorToAPIStatus's 500 without a reason
    const smpError = contentType === 'application/strategic-merge-patch+json' && res.status === 500 && res.body?.reason === undefined;
    const ok = ((res.status >= 400 && res.status < 500) || smpError) && res.body?.kind === 'Status' && res.body?.status === 'Failure';
    if (!ok) unexpected.push(`${res.status} for ${raw.slice(0, 400)}`);
  }
  expect(unexpected).toEqual([]);
  expect(await revision()).toBe(before);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});
