import { request } from 'node:http';
import { Api, type Reply } from '../harness/http';
import { startTestServer } from '../harness/server';
import { WITHOUT_WORKLOAD_CONTROLLERS } from '../harness/workload-controllers';

/** Field validation, the four patch types, server-side apply and managedFields, lost updates, dry run. */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
const NS = '/api/v1/namespaces/default';
const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';

beforeAll(async () => {
  server = await startTestServer(WITHOUT_WORKLOAD_CONTROLLERS);
  api = new Api(server.url);
});

afterAll(async () => {
  await server.close();
});

const pod = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: {
    containers: [
      { name: 'app', image: 'nginx:1.25', volumeMounts: [{ name: 'data', mountPath: '/data' }] },
      { name: 'log', image: 'busybox:1.36' },
    ],
    volumes: [
      { name: 'data', emptyDir: {} },
      { name: 'cache', emptyDir: {} },
    ],
    ...extra,
  },
});

const deployment = (name: string, replicas = 1) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } },
  },
});

/**
 * The config maps and their versions: what a dry run could change (the etcd revision moves with
 * lease renewals). kube-root-ca.crt is left out: the root CA publisher writes it into each new
 * namespace whenever it gets there, which is after this file's first tests when it runs alone.
 */
async function revision(): Promise<string> {
  const items = (await api.get('/api/v1/configmaps')).body.items as { metadata: { namespace: string; name: string; resourceVersion: string } }[];
  return items
    .filter((c) => c.metadata.name !== 'kube-root-ca.crt')
    .map((c) => `${c.metadata.namespace}/${c.metadata.name}@${c.metadata.resourceVersion}`)
    .join(',');
}

describe('field validation', () => {
  const withUnknown = () => ({ ...pod('fv'), spec: { ...pod('fv').spec, bogus: 1 }, extra: true });

  test('Strict refuses unknown fields, naming each', async () => {
    const res = await api.post(`${NS}/pods?fieldValidation=Strict`, withUnknown());
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('strict decoding error: unknown field "spec.bogus", unknown field "extra"');
  });

  test('Warn (the default) drops them with one Warning each', async () => {
    const res = await api.post(`${NS}/pods`, withUnknown());
    expect(res.status).toBe(201);
    expect(res.headers.get('warning')).toBe('299 - "unknown field \\"spec.bogus\\"", 299 - "unknown field \\"extra\\""');
    expect(res.body.extra).toBeUndefined();
    expect(res.body.spec.bogus).toBeUndefined();
  });

  test('a Warning names a field in UTF-8, as Go writes it, in JSON, YAML and Protobuf answers', async () => {
    for (const accept of ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf']) {
      const res = await api.post(`${NS}/configmaps?dryRun=All`, { metadata: { name: 'fv-utf8' }, 'clé✓': 1 }, { accept });
      expect(res.status).toBe(201);
      // fetch reads header bytes as latin1: the bytes are the UTF-8 of the field's name.
      expect(Buffer.from(res.headers.get('warning') ?? '', 'latin1').toString('utf8')).toBe('299 - "unknown field \\"clé✓\\""');
    }
    // Go's %q names a field with a control character or a no-break space by escapes.
    const escaped = await api.post(`${NS}/configmaps?dryRun=All`, { metadata: { name: 'fv-escaped' }, 'a\u0001b\u00a0\u007f': 1 });
    expect(escaped.headers.get('warning')).toBe('299 - "unknown field \\"a\\\\x01b\\\\u00a0\\\\x7f\\""');
  });

  test('JSON and merge patches: Strict is a 422 against the JSON json-patch v4 wrote, Warn a Warning', async () => {
    const path = `${NS}/configmaps/fv-patch`;
    expect((await api.post(`${NS}/configmaps`, { metadata: { name: 'fv-patch' }, data: { x: 'y' } })).status).toBe(201);
    const got = (await api.get(path)).body;
    // json-patch v4 decoded the top-level object, so its keys are sorted; the rest is as it came
    const patchedJson = JSON.stringify(Object.fromEntries(Object.entries({ ...got, spec: { foo: 1 } }).sort(([a], [b]) => (a < b ? -1 : 1))));
    const cause = 'strict decoding error: unknown field "spec"';
    const merge = await api.patch(`${path}?fieldValidation=Strict`, { spec: { foo: 1 } }, 'application/merge-patch+json');
    const json = await api.patch(`${path}?fieldValidation=Strict`, [{ op: 'add', path: '/spec', value: { foo: 1 } }], 'application/json-patch+json');
    for (const res of [merge, json]) {
      expect([res.status, res.body]).toEqual([
        422,
        expect.objectContaining({
          reason: 'Invalid',
          message: ` "" is invalid: patch: Invalid value: ${JSON.stringify(patchedJson)}: ${cause}`,
          details: { causes: [{ reason: 'FieldValueInvalid', field: 'patch', message: `Invalid value: ${JSON.stringify(patchedJson)}: ${cause}` }] },
        }),
      ]);
    }
    const ops = await api.request('PATCH', `${path}?fieldValidation=Strict`, {
      raw: '[{"op":"add","op":"add","path":"/spec","value":{"foo":1}}]',
      contentType: 'application/json-patch+json',
    });
    expect([ops.status, ops.body.message]).toEqual([
      422,
      expect.stringMatching(/: strict decoding error: json patch duplicate field "\[0\]\.op", unknown field "spec"$/),
    ]);
    const warned = await api.patch(`${path}?fieldValidation=Warn`, { spec: { foo: 1 } }, 'application/merge-patch+json');
    expect([warned.status, warned.headers.get('warning'), warned.body.spec]).toEqual([200, '299 - "unknown field \\"spec\\""', undefined]);
  });

  test('Ignore drops them silently', async () => {
    const res = await api.post(`${NS}/pods?fieldValidation=Ignore`, { ...withUnknown(), metadata: { name: 'fv-ignore' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('warning')).toBeNull();
  });

  test('duplicate fields in JSON and YAML', async () => {
    const json = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup-json","name":"dup-json"},"data":{"a":"1","a":"2"}}';
    const strict = await api.request('POST', `${NS}/configmaps?fieldValidation=Strict`, { raw: json, contentType: 'application/json' });
    expect(strict.status).toBe(400);
    expect(strict.body.message).toBe('strict decoding error: duplicate field "metadata.name", duplicate field "data.a"');
    const warn = await api.request('POST', `${NS}/configmaps`, { raw: json, contentType: 'application/json' });
    expect(warn.status).toBe(201);
    expect(warn.body.data).toEqual({ a: '2' });
    expect(warn.headers.get('warning')).toContain('duplicate field \\"data.a\\"');
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dup-yaml\ndata:\n  a: "1"\n  a: "2"\n';
    const yamlStrict = await api.request('POST', `${NS}/configmaps?fieldValidation=Strict`, { raw: yaml, contentType: 'application/yaml' });
    expect(yamlStrict.status).toBe(400);
    expect(yamlStrict.body.message).toBe('strict decoding error: line 7: key "a" already set in map');
  });

  test("a body that is not JSON is refused in encoding/json's words, small or sliced, and nothing is written", async () => {
    const refused = async (raw: string) => {
      const res = await api.request('POST', `${NS}/configmaps`, { raw, contentType: 'application/json' });
      expect([res.status, res.body.reason]).toEqual([400, 'BadRequest']);
      return res.body.message as string;
    };
    const unrecognized = "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: ";
    expect(await refused('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"not-json"},}')).toBe(
      `${unrecognized}invalid character '}' looking for beginning of object key string ({"apiVersion":"v1","kind":"Con ...)`,
    );
    expect(await refused('{"apiVersion":"v1" "kind":"ConfigMap"}')).toBe(
      `${unrecognized}invalid character '"' after object key:value pair ({"apiVersion":"v1" "kind":"Con ...)`,
    );
    expect(await refused('{"kind":tru}')).toBe(`${unrecognized}invalid character '}' in literal true (expecting 'e') ({"kind":tru})`);
    expect(await refused('{"kind":"ConfigMap"')).toBe(`${unrecognized}unexpected end of JSON input ({"kind":"ConfigMap")`);
    // Past decodeObject's 64 KiB, where the scans run in slices: the error at the end is found as one at the start.
    const big = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'not-json-big' }, data: { a: 'x'.repeat(100_000) } });
    expect(await refused(`${big.slice(0, -1)},"b":01}`)).toMatch(/invalid character '1' after object key:value pair \(/);
    for (const name of ['not-json', 'not-json-big']) expect((await api.get(`${NS}/configmaps/${name}`)).status).toBe(404);
  });

  test('a large body (decoded in slices) is checked as a small one: duplicate, unknown and mistyped fields, depth', async () => {
    // 1,000 containers make a body over decodeObject's 64 KiB, past several of the scans' 64 Ki-character slices.
    const containers = Array.from({ length: 1_000 }, (_, i) => ({ name: `c${i}`, image: 'x'.repeat(60) }));
    const withTemplate = (name: string, last: string) => {
      const d = deployment(name);
      const text = JSON.stringify({ ...d, spec: { ...d.spec, template: { ...d.spec.template, spec: { containers } } } });
      expect(text.length).toBeGreaterThan(64 * 1024);
      // The duplicate is the body's last field, found only once the scan has yielded.
      return `${text.slice(0, -1)},${last}}`;
    };
    const dup = await api.request('POST', `${DEPLOYMENTS}?fieldValidation=Strict`, {
      raw: withTemplate('big-dup', '"kind":"Deployment","bogus":1'),
      contentType: 'application/json',
    });
    expect(dup.status).toBe(400);
    expect(dup.body.message).toBe('strict decoding error: duplicate field "kind", unknown field "bogus"');
    const typed = await api.request('POST', DEPLOYMENTS, {
      raw: withTemplate('big-typed', '"spec":{"replicas":"x","template":{"spec":{"containers":[]}}}'),
      contentType: 'application/json',
    });
    expect(typed.status).toBe(400);
    expect(typed.body.message).toContain('cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32');
    const deep = await api.request('POST', DEPLOYMENTS, {
      raw: `${withTemplate('big-deep', '"x":').slice(0, -1)}${'['.repeat(1_001)}${']'.repeat(1_001)}}`,
      contentType: 'application/json',
    });
    expect(deep.status).toBe(400);
    expect(deep.body.message).toContain('exceeded max depth of 1000');
    const created = await api.post(DEPLOYMENTS, JSON.parse(withTemplate('big-ok', '"status":{}')));
    expect(created.status).toBe(201);
    expect(created.body.spec.template.spec.containers).toHaveLength(1_000);
  });

  test('a large patch body (scanned in slices) is checked as a small one: duplicate fields, depth', async () => {
    expect((await api.post(`${NS}/configmaps`, { metadata: { name: 'big-patch' } })).status).toBe(201);
    const data = Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`k${i}`, 'v'.repeat(40)]));
    const text = JSON.stringify({ data });
    expect(text.length).toBeGreaterThan(64 * 1024);
    const patch = (raw: string) =>
      api.request('PATCH', `${NS}/configmaps/big-patch?fieldValidation=Strict`, { raw, contentType: 'application/merge-patch+json' });
    const dup = await patch(`${text.slice(0, -1)},"data":{"k1":"a","k1":"b"}}`);
    expect([dup.status, dup.body.reason]).toEqual([422, 'Invalid']);
    expect(dup.body.message).toMatch(
      /^ "" is invalid: patch: Invalid value: "\{.*\}": strict decoding error: duplicate field "data", duplicate field "data.k1"$/,
    );
    const deep = await patch(`${text.slice(0, -1)},"x":${'['.repeat(1_001)}${']'.repeat(1_001)}}`);
    expect(deep.status).toBe(400);
    expect(deep.body.message).toContain('exceeded max depth of 1000');
    const ok = await patch(text);
    expect(ok.status).toBe(200);
    expect(Object.keys(ok.body.data)).toHaveLength(2_000);
  });

  test('wrong types are 400 whatever the level; missing required fields are 422', async () => {
    const wrong = await api.post(`${DEPLOYMENTS}?fieldValidation=Ignore`, { ...deployment('typed'), spec: { ...deployment('typed').spec, replicas: 'three' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
    const missing = await api.post(`${NS}/pods`, { metadata: { name: 'req' }, spec: { containers: [{ image: 'x' }] } });
    expect(missing.status).toBe(422);
    expect(missing.body.details.causes).toContainEqual({ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers[0].name' });
  });

  test('a missing int or bool the schema requires is its zero value, as a Go struct decodes it', async () => {
    const rs = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'zero-status' },
      spec: { selector: { matchLabels: { app: 'z' } }, template: { metadata: { labels: { app: 'z' } }, spec: { containers: [{ name: 'c', image: 'x' }] } } },
    };
    expect((await api.post('/apis/apps/v1/namespaces/default/replicasets', rs)).status).toBe(201);
    const svc = { metadata: { name: 'no-port' }, spec: { ports: [{ name: 'p' }] } };
    const refused = await api.post(`${NS}/services`, svc);
    expect(refused.status).toBe(422);
    expect(refused.body.details.causes).toContainEqual(expect.objectContaining({ field: 'spec.ports[0].port' }));
  });

  test('a request both invalid and with unknown fields reports only the first fatal error', async () => {
    const res = await api.post(`${DEPLOYMENTS}?fieldValidation=Strict`, { ...deployment('both'), spec: { replicas: 'x', nope: 1 } });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('cannot unmarshal string');
    expect(res.body.message).not.toContain('unknown field');
  });

  test('an unknown fieldValidation value is 422', async () => {
    const res = await api.post(`${NS}/configmaps?fieldValidation=Loose`, { metadata: { name: 'x' } });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(
      'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loose": supported values: "Ignore", "Warn", "Strict"',
    );
  });
});

describe('patches', () => {
  test('JSON patch, including a failed test that changes nothing', async () => {
    await api.post(`${NS}/configmaps`, { metadata: { name: 'jp', labels: { v: '1' } } });
    const ok = await api.patch(
      `${NS}/configmaps/jp`,
      [
        { op: 'test', path: '/metadata/labels/v', value: '1' },
        { op: 'replace', path: '/metadata/labels/v', value: '2' },
      ],
      'application/json-patch+json',
    );
    expect(ok.status).toBe(200);
    expect(ok.body.metadata.labels).toEqual({ v: '2' });
    const failed = await api.patch(
      `${NS}/configmaps/jp`,
      [
        { op: 'test', path: '/metadata/labels/v', value: '1' },
        { op: 'remove', path: '/metadata/labels' },
      ],
      'application/json-patch+json',
    );
    expect(failed.status).toBe(422);
    expect(failed.body).toMatchObject({ reason: 'Invalid', message: 'the server rejected our request due to an error in our request' });
    expect((await api.get(`${NS}/configmaps/jp`)).body.metadata.labels).toEqual({ v: '2' });
  });

  test('merge patch: null deletes, objects merge, lists replace', async () => {
    await api.post(`${NS}/configmaps`, { metadata: { name: 'mp', labels: { a: '1', b: '2' } }, data: { x: 'y' } });
    const res = await api.patch(`${NS}/configmaps/mp`, { metadata: { labels: { a: null, c: '3' } }, data: { z: 'w' } }, 'application/merge-patch+json');
    expect(res.body.metadata.labels).toEqual({ b: '2', c: '3' });
    expect(res.body.data).toEqual({ x: 'y', z: 'w' });
  });

  test('strategic merge on pod containers and volumes by name', async () => {
    await api.post(`${NS}/pods`, pod('smp'));
    const res = await api.patch(
      `${NS}/pods/smp`,
      {
        spec: {
          containers: [
            { name: 'log', image: 'busybox:1.37' },
            { name: 'app', $patch: 'delete' },
          ],
          volumes: [{ name: 'cache', $patch: 'delete' }],
        },
      },
      'application/strategic-merge-patch+json',
    );
    expect(res.status).toBe(422);
    const patched = await api.patch(
      `${NS}/pods/smp`,
      { spec: { containers: [{ name: 'log', image: 'busybox:1.37' }], volumes: [{ name: 'cache', $patch: 'delete' }] } },
      'application/strategic-merge-patch+json',
    );
    expect(patched.status).toBe(422);
    expect(patched.body.message).toContain('pod updates may not change fields');
    const images = await api.patch(
      `${NS}/pods/smp`,
      { spec: { containers: [{ name: 'log', image: 'busybox:1.37' }] } },
      'application/strategic-merge-patch+json',
    );
    expect(images.status).toBe(200);
    expect(images.body.spec.containers.map((c: { name: string; image: string }) => `${c.name}=${c.image}`)).toEqual(['app=nginx:1.25', 'log=busybox:1.37']);
    const dep = await api.post(DEPLOYMENTS, {
      ...deployment('smp-dep'),
      spec: { ...deployment('smp-dep').spec, template: { ...deployment('smp-dep').spec.template, spec: pod('x').spec } },
    });
    expect(dep.status).toBe(201);
    const vol = await api.patch(
      `${DEPLOYMENTS}/smp-dep`,
      {
        spec: {
          template: {
            spec: {
              volumes: [
                { name: 'cache', $patch: 'delete' },
                { name: 'extra', emptyDir: {} },
              ],
              containers: [{ name: 'app', env: [{ name: 'A', value: '1' }] }],
            },
          },
        },
      },
      'application/strategic-merge-patch+json',
    );
    expect(vol.status).toBe(200);
    const tpl = vol.body.spec.template.spec;
    expect(tpl.volumes.map((v: { name: string }) => v.name).sort()).toEqual(['data', 'extra']);
    expect(tpl.containers.find((c: { name: string }) => c.name === 'app')).toMatchObject({ image: 'nginx:1.25', env: [{ name: 'A', value: '1' }] });
  });

  test('unsupported patch types are 415', async () => {
    const res = await api.patch(`${NS}/configmaps/mp`, {}, 'application/xml');
    expect(res.status).toBe(415);
    expect(res.body.message).toContain('application/strategic-merge-patch+json');
  });

  test('a patch carrying a stale resourceVersion is 409; a current one applies', async () => {
    const cm = await api.post(`${NS}/configmaps`, { metadata: { name: 'lost' } });
    await api.patch(`${NS}/configmaps/lost`, { data: { a: '1' } }, 'application/merge-patch+json');
    const stale = await api.patch(
      `${NS}/configmaps/lost`,
      { metadata: { resourceVersion: cm.body.metadata.resourceVersion }, data: { a: '2' } },
      'application/merge-patch+json',
    );
    expect(stale.status).toBe(409);
    const current = (await api.get(`${NS}/configmaps/lost`)).body.metadata.resourceVersion;
    const ok = await api.patch(`${NS}/configmaps/lost`, { metadata: { resourceVersion: current }, data: { a: '3' } }, 'application/merge-patch+json');
    expect(ok.status).toBe(200);
  });
});

describe('a JSON patch replacing the whole document (path "")', () => {
  const path = `${NS}/configmaps/root-replace`;
  const JSON_PATCH = 'application/json-patch+json';

  beforeAll(async () => {
    expect((await api.post(`${NS}/configmaps`, { metadata: { name: 'root-replace' }, data: { a: '1' } })).status).toBe(201);
  });

  test('an object replaces it, as json-patch v4 Patch.replace does', async () => {
    const got = (await api.get(path)).body;
    const res = await api.patch(path, [{ op: 'replace', path: '', value: { ...got, data: { b: '2' } } }], JSON_PATCH);
    expect([res.status, res.body.data]).toEqual([200, { b: '2' }]);
  });

  test('an array is what runtime.DecodeInto cannot read type meta from: a 422 against the patched JSON', async () => {
    const cause = `couldn't get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`;
    const res = await api.patch(path, [{ op: 'replace', path: '', value: [{ b: 1, a: 2 }] }], JSON_PATCH);
    expect([res.status, res.body.reason, res.body.message]).toEqual([
      422,
      'Invalid',
      ` "" is invalid: patch: Invalid value: "[{\\"b\\":1,\\"a\\":2}]": ${cause}`,
    ]);
  });

  test('a value neither object nor array, and an add or remove of the root, do not apply: 422', async () => {
    for (const op of [
      { op: 'replace', path: '', value: 'x' },
      { op: 'add', path: '', value: {} },
      { op: 'remove', path: '' },
    ]) {
      const res = await api.patch(path, [op], JSON_PATCH);
      expect([op, res.status, res.body.message]).toEqual([op, 422, 'the server rejected our request due to an error in our request']);
    }
  });
});

describe('server-side apply', () => {
  const applyYaml = (name: string, replicas: number, image = 'nginx:1.25') =>
    `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\nspec:\n  replicas: ${replicas}\n  selector:\n    matchLabels: {app: ${name}}\n  template:\n    metadata:\n      labels: {app: ${name}}\n    spec:\n      containers:\n      - name: web\n        image: ${image}\n`;
  const apply = (name: string, body: string, query: string) =>
    api.request('PATCH', `${DEPLOYMENTS}/${name}?${query}`, { raw: body, contentType: 'application/apply-patch+yaml' });

  test('creates when absent and records Apply ownership in managedFields', async () => {
    const res = await apply('ssa', applyYaml('ssa', 2), 'fieldManager=alice');
    expect(res.status).toBe(201);
    expect(res.body.metadata.managedFields).toEqual([
      {
        manager: 'alice',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        time: expect.any(String),
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:spec': {
            'f:replicas': {},
            'f:selector': {},
            'f:template': {
              'f:metadata': { 'f:labels': { 'f:app': {} } },
              'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
            },
          },
        },
      },
    ]);
  });

  test('fieldManager is required', async () => {
    const res = await apply('ssa', applyYaml('ssa', 2), '');
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
  });

  test('a second manager changing an owned field conflicts; force takes ownership', async () => {
    const conflict = await apply('ssa', 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ssa\nspec:\n  replicas: 5\n', 'fieldManager=bob');
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({
      reason: 'Conflict',
      message: 'Apply failed with 1 conflict: conflict with "alice": .spec.replicas',
      details: { causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.spec.replicas' }] },
    });
    const same = await apply('ssa', 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ssa\nspec:\n  replicas: 2\n', 'fieldManager=carol');
    expect(same.status).toBe(200);
    const forced = await apply('ssa', 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ssa\nspec:\n  replicas: 5\n', 'fieldManager=bob&force=true');
    expect(forced.status).toBe(200);
    expect(forced.body.spec.replicas).toBe(5);
    const owners = (m: { manager: string; fieldsV1: { 'f:spec'?: Record<string, unknown> } }[]) =>
      Object.fromEntries(m.map((e) => [e.manager, Object.keys(e.fieldsV1['f:spec'] ?? {}).sort()]));
    expect(owners(forced.body.metadata.managedFields)).toEqual({ alice: ['f:selector', 'f:template'], bob: ['f:replicas'] });
  });

  test('a field dropped from the configuration is removed when no one else owns it', async () => {
    const withSidecar = applyYaml('prune', 1).replace('        image: nginx:1.25\n', '        image: nginx:1.25\n      - name: side\n        image: busybox\n');
    await apply('prune', withSidecar, 'fieldManager=alice');
    const res = await apply('prune', applyYaml('prune', 1), 'fieldManager=alice');
    expect(res.body.spec.template.spec.containers.map((c: { name: string }) => c.name)).toEqual(['web']);
  });

  test('updates are tracked too: a PUT records an Update entry for its manager', async () => {
    const current = (await api.get(`${DEPLOYMENTS}/prune`)).body;
    const res = await api.put(`${DEPLOYMENTS}/prune?fieldManager=editor`, { ...current, metadata: { ...current.metadata, labels: { edited: 'yes' } } });
    const update = res.body.metadata.managedFields.find((e: { manager: string }) => e.manager === 'editor');
    expect(update).toMatchObject({ operation: 'Update', apiVersion: 'apps/v1', fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:edited': {} } } } });
    const created = await api.post(
      `${NS}/configmaps`,
      { metadata: { name: 'by-agent' }, data: { a: 'b' } },
      { headers: { 'User-Agent': 'my-controller/1.0 (linux)' } },
    );
    expect(created.body.metadata.managedFields).toEqual([
      {
        manager: 'my-controller',
        operation: 'Update',
        apiVersion: 'v1',
        time: expect.any(String),
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } },
      },
    ]);
  });

  test('a write naming no manager, with no User-Agent header or none before its "/", is recorded as kube records it: manager unknown', async () => {
    // fetch always sends a User-Agent; node:http sends none unless told
    const bare = (method: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
      new Promise<{ status: number; body: any }>((resolve, reject) => {
        const req = request(`${server.url}${path}`, { method, headers: { 'Content-Type': 'application/json', ...headers } }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
        });
        req.on('error', reject);
        req.end(JSON.stringify(body));
      });
    const created = await bare('POST', `${NS}/configmaps`, { metadata: { name: 'no-agent' }, data: { a: 'b' } });
    expect(created.status).toBe(201);
    expect(created.body.metadata.managedFields).toEqual([
      {
        manager: 'unknown',
        operation: 'Update',
        apiVersion: 'v1',
        time: expect.any(String),
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:a': {} } },
      },
    ]);
    const patched = await bare(
      'PATCH',
      `${NS}/configmaps/no-agent`,
      { data: { c: 'd' } },
      { 'Content-Type': 'application/merge-patch+json', 'User-Agent': '/1.0' },
    );
    expect(patched.status).toBe(200);
    expect(patched.body.metadata.managedFields).toEqual([
      expect.objectContaining({ manager: 'unknown', operation: 'Update', fieldsV1: { 'f:data': { '.': {}, 'f:a': {}, 'f:c': {} } } }),
    ]);
    // prefixFromUserAgent keeps printable characters only, the header's bytes read as UTF-8 (node:http sends them so)
    const agent = await bare('POST', `${NS}/configmaps`, { metadata: { name: 'agent-utf8' }, data: { a: 'b' } }, { 'User-Agent': 'café\tbot/2' });
    expect(agent.body.metadata.managedFields.map((e: { manager: string }) => e.manager)).toEqual(['cafébot']);
  });

  test('re-applying the same configuration writes nothing', async () => {
    const first = await apply('same', applyYaml('same', 1), 'fieldManager=alice');
    const again = await apply('same', applyYaml('same', 1), 'fieldManager=alice');
    expect(again.body.metadata.resourceVersion).toBe(first.body.metadata.resourceVersion);
  });

  describe("kubectl's server-side apply takes over from its client-side apply", () => {
    const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
    const cm = (name: string, value: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' }, data: { key: value } });
    const applyCm = (name: string, value: string, query: string) =>
      api.request('PATCH', `${NS}/configmaps/${name}?${query}`, { raw: JSON.stringify(cm(name, value)), contentType: 'application/apply-patch+yaml' });
    /** What `kubectl apply` (client-side) leaves: the annotation, owned by kubectl-client-side-apply. */
    const clientSideApplied = async (name: string, value: string) => {
      const config = cm(name, value);
      const body = { ...config, metadata: { ...config.metadata, annotations: { [LAST_APPLIED]: `${JSON.stringify(config)}\n` } } };
      expect((await api.post(`${NS}/configmaps?fieldManager=kubectl-client-side-apply`, body)).status).toBe(201);
    };

    test('without conflicts for fields that still hold what was last applied, and the annotation follows', async () => {
      await clientSideApplied('csa', 'one');
      const res = await applyCm('csa', 'two', 'fieldManager=kubectl');
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ key: 'two' });
      expect(res.body.metadata.annotations[LAST_APPLIED]).toBe(
        '{"apiVersion":"v1","data":{"key":"two"},"kind":"ConfigMap","metadata":{"name":"csa","namespace":"default"}}\n',
      );
      expect(res.body.metadata.managedFields.map((e: { manager: string }) => e.manager)).toEqual(['kubectl', 'kubectl-client-side-apply']);
    });

    test('other managers, and fields changed since the last client-side apply, still conflict', async () => {
      await clientSideApplied('csa-other', 'one');
      const other = await applyCm('csa-other', 'two', 'fieldManager=helm');
      expect(other.status).toBe(409);
      expect(other.body.message).toBe('Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.key');
      const live = (await api.get(`${NS}/configmaps/csa-other`)).body;
      expect((await api.put(`${NS}/configmaps/csa-other?fieldManager=kubectl-client-side-apply`, { ...live, data: { key: 'edited' } })).status).toBe(200);
      const stale = await applyCm('csa-other', 'two', 'fieldManager=kubectl');
      expect(stale.status).toBe(409);
    });
  });
});

describe('dry run', () => {
  test('each verb runs fully, answers as usual and persists nothing', async () => {
    await api.post(`${NS}/configmaps`, { metadata: { name: 'dry' }, data: { a: '1' } });
    const before = await revision();
    const create = await api.post(`${NS}/configmaps?dryRun=All`, { metadata: { generateName: 'dry-' } });
    expect(create.status).toBe(201);
    expect(create.body.metadata.name).toMatch(/^dry-/);
    expect(create.body.metadata.uid).toBeDefined();
    expect(create.body.metadata.resourceVersion).toBeUndefined();
    const current = (await api.get(`${NS}/configmaps/dry`)).body;
    const update = await api.put(`${NS}/configmaps/dry?dryRun=All`, { ...current, data: { a: '2' } });
    expect(update.status).toBe(200);
    expect(update.body.data).toEqual({ a: '2' });
    const patch = await api.patch(`${NS}/configmaps/dry?dryRun=All`, { data: { a: '3' } }, 'application/merge-patch+json');
    expect(patch.body.data).toEqual({ a: '3' });
    const apply = await api.request('PATCH', `${NS}/configmaps/dry-applied?dryRun=All&fieldManager=x`, {
      raw: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dry-applied\n',
      contentType: 'application/apply-patch+yaml',
    });
    expect(apply.status).toBe(201);
    const del = await api.delete(`${NS}/configmaps/dry?dryRun=All`);
    expect(del.status).toBe(200);
    expect(await revision()).toBe(before);
    expect((await api.get(`${NS}/configmaps/dry`)).body.data).toEqual({ a: '1' });
    expect((await api.get(`${NS}/configmaps/dry-applied`)).status).toBe(404);
  });

  test('the bare dryRun flag is a dry run (issue 5); a dryRun list with any other value but "All" is refused on every verb as ValidateDryRun words it (400: docs/divergences.md)', async () => {
    await api.post(`${NS}/configmaps`, { metadata: { name: 'dry-refused' }, data: { a: '1' } });
    const current = (await api.get(`${NS}/configmaps/dry-refused`)).body;
    const verbs: [string, (query: string) => Promise<Reply>][] = [
      ['CreateOptions', (q) => api.post(`${NS}/configmaps?${q}`, { metadata: { name: 'x' } })],
      ['UpdateOptions', (q) => api.put(`${NS}/configmaps/dry-refused?${q}`, { ...current, data: { a: '2' } })],
      ['PatchOptions', (q) => api.patch(`${NS}/configmaps/dry-refused?${q}`, { data: { a: '2' } }, 'application/merge-patch+json')],
      ['DeleteOptions', (q) => api.delete(`${NS}/configmaps/dry-refused?${q}`)],
      ['DeleteOptions', (q) => api.delete(`${NS}/configmaps?${q}`)],
    ];
    const cases: [string, string][] = [
      ['dryRun=Maybe', '["Maybe"]'],
      ['dryRun&dryRun=Maybe', '["","Maybe"]'],
      ['dryRun=All&dryRun=Maybe&dryRun=%3Cb%3E', '["All","Maybe","\\u003cb\\u003e"]'],
    ];
    for (const [kind, send] of verbs) {
      for (const [query, value] of cases) {
        const res = await send(query);
        expect([kind, query, res.status, res.body.reason, res.body.message]).toEqual([
          kind,
          query,
          400,
          'BadRequest',
          `${kind}.meta.k8s.io "" is invalid: dryRun: Unsupported value: ${value}: supported values: "All"`,
        ]);
        expect(res.body.details.causes).toEqual([
          { reason: 'FieldValueNotSupported', message: `Unsupported value: ${value}: supported values: "All"`, field: 'dryRun' },
        ]);
      }
    }
    // The bare flag runs every verb as a dry run: nothing below is written.
    for (const [kind, send] of verbs) expect([kind, (await send('dryRun')).status]).toEqual([kind, kind === 'CreateOptions' ? 201 : 200]);
    expect((await api.get(`${NS}/configmaps/x`)).status).toBe(404);
    expect((await api.get(`${NS}/configmaps/dry-refused`)).body).toEqual(current);
  });

  test('pretty works with writes, dry run included', async () => {
    const res = await api.post(`${NS}/configmaps?dryRun=All&pretty=true`, { metadata: { name: 'pretty' } });
    expect(res.text.startsWith('{\n  "kind": "ConfigMap",')).toBe(true);
  });
});

describe('ConfigMap and Secret keys, as ValidateConfigMap and ValidateSecret read them', () => {
  test('binaryData keys named like Object.prototype members are ordinary keys', async () => {
    const binaryData = { constructor: 'eA==', toString: 'eA==', valueOf: 'eA==' };
    const created = await api.post(`${NS}/configmaps`, { metadata: { name: 'prototype-keys' }, data: { a: 'b' }, binaryData });
    expect(created.status).toBe(201);
    expect((await api.get(`${NS}/configmaps/prototype-keys`)).body.binaryData).toEqual(binaryData);
  });

  test('a key in both data and binaryData, and a bad key, are reported at data[key]', async () => {
    const res = await api.post(`${NS}/configmaps`, { metadata: { name: 'both-bags' }, data: { a: 'b', 'bad key': 'c' }, binaryData: { a: 'eA==' } });
    expect(res.status).toBe(422);
    expect(res.body.details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "a": duplicate of key present in binaryData', field: 'data[a]' },
      {
        reason: 'FieldValueInvalid',
        message: `Invalid value: "bad key": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
        field: 'data[bad key]',
      },
    ]);
    const secret = await api.post(`${NS}/secrets`, { metadata: { name: 'bad-key' }, data: { 'bad key': 'eA==' } });
    expect(secret.status).toBe(422);
    expect(secret.body.details.causes.map((c: { field: string }) => c.field)).toEqual(['data[bad key]']);
  });

  test("base64 broken into lines is taken, as Go's decoder skips \\r and \\n, and read back canonical", async () => {
    const res = await api.post(`${NS}/secrets`, { metadata: { name: 'wrapped' }, data: { k: 'aGVsbG8g\r\nd29ybGQ=\n' } });
    expect(res.status).toBe(201);
    expect((await api.get(`${NS}/secrets/wrapped`)).body.data).toEqual({ k: 'aGVsbG8gd29ybGQ=' });
    const bad = await api.post(`${NS}/secrets`, { metadata: { name: 'wrapped-bad' }, data: { k: 'aGVs\nbG8*' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('illegal base64 data at input byte 8');
  });
});

describe('type meta as Go decodes it', () => {
  test('a null apiVersion or kind is as if absent: the endpoint names them', async () => {
    const res = await api.post(`${NS}/configmaps`, { apiVersion: null, kind: null, metadata: { name: 'null-type-meta' }, data: { a: 'b' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
    const wrong = await api.post(`${NS}/configmaps`, { apiVersion: 7, metadata: { name: 'number-type-meta' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toContain('cannot unmarshal number into Go struct field .apiVersion of type string');
  });
});

describe('null elements of lists and maps of structs, as encoding/json decodes them', () => {
  const bare = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec });

  test('a null port or env var is one of zero values, which validation refuses', async () => {
    const res = await api.post(
      `${NS}/pods`,
      bare('null-items', { containers: [{ name: 'c', image: 'nginx', ports: [null, { containerPort: 80 }], env: [null] }] }),
    );
    expect(res.status).toBe(422);
    expect(res.body.details.causes.map((c: { field: string; reason: string }) => `${c.reason} ${c.field}`)).toEqual([
      'FieldValueRequired spec.containers[0].ports[0].containerPort',
      'FieldValueRequired spec.containers[0].env[0].name',
    ]);
  });

  test('a null image pull secret is stored as an empty one', async () => {
    const res = await api.post(`${NS}/pods`, bare('null-secret', { containers: [{ name: 'c', image: 'nginx' }], imagePullSecrets: [null] }));
    expect(res.status).toBe(201);
    expect((await api.get(`${NS}/pods/null-secret`)).body.spec.imagePullSecrets).toEqual([{}]);
  });
});

describe('fieldManager as ValidateFieldManager reads it', () => {
  test('at most 128 bytes, not characters; every rune printable, each reported at its byte', async () => {
    const create = (manager: string, name: string) => api.post(`${NS}/configmaps?fieldManager=${encodeURIComponent(manager)}`, { metadata: { name } });
    const long = await create('é'.repeat(65), 'fm-long');
    expect(long.status).toBe(422);
    expect(long.body.details.causes).toEqual([{ reason: 'FieldValueTooLong', message: 'Too long: may not be more than 128 bytes', field: 'fieldManager' }]);
    const unprintable = await create('a\u00a0b\u200bc\u0085', 'fm-space');
    expect(unprintable.status).toBe(422);
    expect(unprintable.body.details.causes.map((c: { message: string }) => c.message)).toEqual([
      // The value as Go's %q writes it.
      'Invalid value: "a\\u00a0b\\u200bc\\u0085": invalid character U+00A0 (at position 1)',
      'Invalid value: "a\\u00a0b\\u200bc\\u0085": invalid character U+200B (at position 4)',
      'Invalid value: "a\\u00a0b\\u200bc\\u0085": invalid character U+0085 (at position 8)',
    ]);
    expect((await create('é'.repeat(64), 'fm-fits')).status).toBe(201);
  });
});
