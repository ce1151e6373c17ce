import { createEstablished, simpleCrd } from '../harness/crds';
import { Api, type Reply } from '../harness/http';
import { kubectl } from '../harness/process';
import { startTestServer } from '../harness/server';
import { WITHOUT_WORKLOAD_CONTROLLERS } from '../harness/workload-controllers';

/** PATCH as kube-apiserver's PatchResource and its patchers answer it: bodies, directives, errors. */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
const NS = '/api/v1/namespaces/default';
const JSON_PATCH = 'application/json-patch+json';
const MERGE_PATCH = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';

beforeAll(async () => {
  server = await startTestServer(WITHOUT_WORKLOAD_CONTROLLERS);
  api = new Api(server.url);
});

afterAll(async () => {
  await server.close();
});

const rawPatch = (path: string, raw: string, contentType: string): Promise<Reply> => api.request('PATCH', path, { raw, contentType });
const failure = (res: Reply) => ({ status: res.status, reason: res.body.reason, message: res.body.message });

describe('the body of a JSON, merge or strategic merge patch', () => {
  const cm = `${NS}/configmaps/bodies`;
  beforeAll(async () => {
    expect((await api.post(`${NS}/configmaps`, { metadata: { name: 'bodies' }, data: { k: 'v' } })).status).toBe(201);
  });

  test('is read once the object is found: a patch of a missing object is a 404 whatever its body', async () => {
    for (const [raw, type] of [
      ['[{', JSON_PATCH],
      ['[]', MERGE_PATCH],
      ['null', MERGE_PATCH],
      ['"x"', STRATEGIC],
    ]) {
      expect(failure(await rawPatch(`${NS}/configmaps/missing`, raw, type))).toEqual({
        status: 404,
        reason: 'NotFound',
        message: 'configmaps "missing" not found',
      });
    }
  });

  test('a merge patch that is not an object: strictly decoded under Warn and Strict, MergePatch under Ignore', async () => {
    const bad = (message: string) => ({ status: 400, reason: 'BadRequest', message });
    const mapError = (kind: string) => bad(`error decoding patch: json: cannot unmarshal ${kind} into Go value of type map[string]interface {}`);
    expect(failure(await rawPatch(cm, '[]', MERGE_PATCH))).toEqual(mapError('array'));
    expect(failure(await rawPatch(`${cm}?fieldValidation=Strict`, 'true', MERGE_PATCH))).toEqual(mapError('bool'));
    expect(failure(await rawPatch(cm, '"x"', MERGE_PATCH))).toEqual(mapError('string'));
    expect(failure(await rawPatch(cm, 'null', MERGE_PATCH))).toEqual(bad('Invalid JSON Patch'));
    expect(failure(await rawPatch(`${cm}?fieldValidation=Ignore`, '3', MERGE_PATCH))).toEqual(bad('Invalid JSON Patch'));
    expect(failure(await rawPatch(`${cm}?fieldValidation=Ignore`, '{', MERGE_PATCH))).toEqual(bad('Invalid JSON Patch'));
    expect(failure(await rawPatch(cm, '{', MERGE_PATCH)).message).toMatch(/^error decoding patch: /);
    // Under Ignore an array replaces the document, its objects pruned of nulls; it then has no kind to decode
    const array = await rawPatch(`${cm}?fieldValidation=Ignore`, '[{"a":null,"b":[null]}]', MERGE_PATCH);
    expect(array.status).toBe(422);
    expect(array.body.details.causes[0]).toMatchObject({
      field: 'patch',
      message: expect.stringMatching(/^Invalid value: "\[\{\\"b\\":\[null\]\}\]": couldn't get version\/kind/),
    });
    expect((await api.get(cm)).body.data).toEqual({ k: 'v' });
  });

  test('a JSON patch is strictly decoded into its operations under Warn and Strict', async () => {
    const bad = (message: string) => ({ status: 400, reason: 'BadRequest', message: `error decoding patch: json: cannot unmarshal ${message}` });
    expect(failure(await api.patch(cm, {}, JSON_PATCH))).toEqual(bad('object into Go value of type []handlers.jsonPatchOp'));
    expect(failure(await api.patch(cm, ['x'], JSON_PATCH))).toEqual(bad('string into Go value of type handlers.jsonPatchOp'));
    expect(failure(await api.patch(cm, [{ op: 1, path: '/data/x' }], JSON_PATCH))).toEqual(bad('number into Go struct field jsonPatchOp.op of type string'));
    expect(
      failure(
        await api.patch(
          cm,
          [
            { op: 'add', path: '/data/x', value: 'y' },
            { op: 'add', path: true },
          ],
          JSON_PATCH,
        ),
      ),
    ).toEqual(bad('bool into Go struct field jsonPatchOp.path of type string'));
    // Under Ignore, json-patch's DecodePatch alone reads it
    expect(failure(await rawPatch(`${cm}?fieldValidation=Ignore`, '{}', JSON_PATCH))).toEqual({
      status: 400,
      reason: 'BadRequest',
      message: 'json: cannot unmarshal object into Go value of type jsonpatch.Patch',
    });
    expect(failure(await rawPatch(cm, '[{', JSON_PATCH)).message).toMatch(/^error decoding patch: /);
    expect((await api.get(cm)).body.data).toEqual({ k: 'v' });
  });

  test("malformed JSON is refused in encoding/json's words, as each patch type's decode prefixes them", async () => {
    const bad = (message: string) => ({ status: 400, reason: 'BadRequest', message });
    expect(failure(await rawPatch(cm, '[{"op":}]', JSON_PATCH))).toEqual(bad("error decoding patch: invalid character '}' looking for beginning of value"));
    expect(failure(await rawPatch(`${cm}?fieldValidation=Ignore`, '[{"op" "add"}]', JSON_PATCH))).toEqual(bad("invalid character '\"' after object key"));
    expect(failure(await rawPatch(cm, '{"data":{"k":"v"', MERGE_PATCH))).toEqual(bad('error decoding patch: unexpected end of JSON input'));
    expect(failure(await rawPatch(cm, "{'data':{}}", STRATEGIC))).toEqual(bad("invalid character '\\'' looking for beginning of object key string"));
    // a create's body, read for its kind first (SimpleMetaFactory.Interpret), then wrapped by transformDecodeError
    const create = await api.request('POST', `${NS}/configmaps`, { raw: '{"kind":"ConfigMap",}', contentType: 'application/json' });
    expect(failure(create)).toEqual(
      bad(
        'the object provided is unrecognized (must be of type ConfigMap): ' +
          `couldn't get version/kind; json parse error: invalid character '}' looking for beginning of object key string ({"kind":"ConfigMap",})`,
      ),
    );
  });

  test('the fields of a JSON patch operation jsonPatchOp lacks are strict decoding errors, matched case-sensitively', async () => {
    const ops = [
      { op: 'add', path: '/data/x', value: 'y', comment: 'mine' },
      { op: 'remove', path: '/data/x', Op: 'add' },
    ];
    const warned = await api.patch(cm, ops, JSON_PATCH);
    expect(warned.status).toBe(200);
    expect(warned.headers.get('warning')).toBe('299 - "json patch unknown field \\"[0].comment\\"", 299 - "json patch unknown field \\"[1].Op\\""');
    const strict = await api.patch(`${cm}?fieldValidation=Strict`, ops, JSON_PATCH);
    expect(strict.status).toBe(422);
    expect(strict.body.message).toMatch(/: strict decoding error: json patch unknown field "\[0\]\.comment", json patch unknown field "\[1\]\.Op"$/);
    expect((await rawPatch(`${cm}?fieldValidation=Ignore`, JSON.stringify(ops), JSON_PATCH)).headers.get('warning')).toBeNull();
  });

  test('a null JSON patch operation is of no kind json-patch knows: a 422 that changes nothing', async () => {
    const res = await api.patch(cm, [{ op: 'add', path: '/data/x', value: 'y' }, null], JSON_PATCH);
    expect(failure(res)).toEqual({ status: 422, reason: 'Invalid', message: 'the server rejected our request due to an error in our request' });
    expect((await api.get(cm)).body.data).toEqual({ k: 'v' });
  });

  test('a strategic merge patch of null is an empty patch; one of another JSON type is the map decode error', async () => {
    const res = await rawPatch(cm, 'null', STRATEGIC);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ k: 'v' });
    expect(failure(await rawPatch(cm, 'false', STRATEGIC))).toEqual({
      status: 400,
      reason: 'BadRequest',
      message: 'json: cannot unmarshal bool into Go value of type map[string]interface {}',
    });
  });
});

describe('strategic merge patch errors, as interpretStrategicMergePatchError and ErrorToAPIStatus answer them', () => {
  const pod = `${NS}/pods/directives`;
  const notAStatus = (message: string) => ({ status: 500, reason: undefined, message });
  const badRequest = (message: string) => ({ status: 400, reason: 'BadRequest', message });
  const revision = async (): Promise<string> => (await api.get(pod)).body.metadata.resourceVersion;
  beforeAll(async () => {
    const created = await api.post(`${NS}/pods`, {
      metadata: { name: 'directives', finalizers: ['example.com/a'] },
      spec: { containers: [{ name: 'c', image: 'x' }] },
    });
    expect(created.status).toBe(201);
  });

  test("strategicpatch's own errors are no Status: a 500 with the error's text, that changes nothing", async () => {
    const before = await revision();
    expect(failure(await api.patch(pod, { spec: { containers: [{ image: 'y' }] } }, STRATEGIC))).toEqual(
      notAStatus('map: map[image:y] does not contain declared merge key: name'),
    );
    expect(failure(await api.patch(pod, { spec: { containers: [{ name: 'c', $patch: 'bogus' }] } }, STRATEGIC))).toEqual(
      notAStatus('unknown patch type: bogus in map: map[$patch:bogus name:c]'),
    );
    expect(failure(await api.patch(pod, { spec: { containers: [{ name: 'c', $patch: 'merge' }] } }, STRATEGIC))).toEqual(
      notAStatus('merging lists cannot yet be specified in the patch'),
    );
    expect(failure(await api.patch(pod, { metadata: { $patch: 'bogus' } }, STRATEGIC))).toEqual(
      notAStatus('unknown patch type: bogus in map: map[$patch:bogus]'),
    );
    expect(failure(await api.patch(pod, { metadata: { finalizers: [3] } }, STRATEGIC)).message).toBe(
      'list element types are not identical: [[example.com/a] [3]]',
    );
    expect(await revision()).toBe(before);
  });

  test('$setElementOrder: a list, after a slash, giving the patch list its order, of items with the merge key', async () => {
    const order = (directive: string, value: unknown, containers?: unknown[]) =>
      api.patch(pod, { spec: { [directive]: value, ...(containers ? { containers } : {}) } }, STRATEGIC);
    const before = await revision();
    expect(failure(await order('$setElementOrder/containers', 'c'))).toEqual(notAStatus('expected a []interface {}, but received a string'));
    expect(failure(await order('$setElementOrder', []))).toEqual(badRequest('invalid patch format of setElementOrder list'));
    expect(failure(await order('$setElementOrder/containers', [{ name: 'c' }], [{ name: 'd', image: 'x' }, { name: 'c' }]))).toEqual(
      notAStatus("The order in patch list:\n[map[image:x name:d] map[name:c]]\n doesn't match $setElementOrder list:\n[map[name:c]]\n"),
    );
    expect(failure(await order('$setElementOrder/containers', [{ image: 'c' }]))).toEqual(
      notAStatus('map: map[image:c] does not contain declared merge key: name'),
    );
    expect(await revision()).toBe(before);
    const ordered = await order('$setElementOrder/containers', [{ name: 'c' }], [{ name: 'c', image: 'y' }]);
    expect(ordered.status).toBe(200);
    expect(ordered.body.spec.containers.map((c: { image: string }) => c.image)).toEqual(['y']);
  });

  test('$deleteFromPrimitiveList must name its list after a slash', async () => {
    expect(failure(await api.patch(pod, { metadata: { $deleteFromPrimitiveListfinalizers: ['example.com/a'] } }, STRATEGIC))).toEqual(
      badRequest('invalid patch format of primitive list'),
    );
    const deleted = await api.patch(pod, { metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/a'] } }, STRATEGIC);
    expect(deleted.status).toBe(200);
    expect(deleted.body.metadata.finalizers).toBeUndefined();
  });
});

describe("a patch of the object's name or namespace (kube's checkName and EnsureObjectNamespaceMatchesRequestNamespace)", () => {
  const cm = `${NS}/configmaps/named`;
  beforeAll(async () => {
    expect((await api.post(`${NS}/configmaps`, { metadata: { name: 'named' } })).status).toBe(201);
  });

  test('a patch that removes the name leaves an object ObjectName cannot name', async () => {
    const undeterminable = {
      status: 400,
      reason: 'BadRequest',
      message: 'the name of the object (named based on URL) was undeterminable: name must be provided',
    };
    expect(failure(await api.patch(cm, { metadata: { name: null } }, MERGE_PATCH))).toEqual(undeterminable);
    expect(failure(await api.patch(cm, [{ op: 'remove', path: '/metadata/name' }], JSON_PATCH))).toEqual(undeterminable);
    expect(failure(await api.patch(cm, { metadata: { name: '' } }, STRATEGIC))).toEqual(undeterminable);
    // PUT shares the check
    const current = (await api.get(cm)).body;
    expect(failure(await api.put(cm, { ...current, metadata: { ...current.metadata, name: undefined } }))).toEqual(undeterminable);
  });

  test('a patch that renames the object, or moves it to another namespace', async () => {
    expect(failure(await api.patch(cm, { metadata: { name: 'other' } }, MERGE_PATCH))).toEqual({
      status: 400,
      reason: 'BadRequest',
      message: 'the name of the object (other) does not match the name on the URL (named)',
    });
    expect(failure(await api.patch(cm, { metadata: { namespace: 'kube-system' } }, STRATEGIC))).toEqual({
      status: 400,
      reason: 'BadRequest',
      message: 'the namespace of the provided object does not match the namespace sent on the request',
    });
  });
});

describe("the patch types a resource accepts (the generic installer's supportedTypes, crdHandler's)", () => {
  const unsupported = (types: string[]) => ({
    status: 415,
    reason: 'UnsupportedMediaType',
    message: `the body of the request was in an unknown format - accepted media types include: ${types.join(', ')}`,
  });
  const BUILT_IN = [JSON_PATCH, MERGE_PATCH, STRATEGIC, 'application/apply-patch+yaml'];
  const CUSTOM = [JSON_PATCH, MERGE_PATCH, 'application/apply-patch+yaml'];
  const CRD = 'widgets.patching.example.com';
  beforeAll(async () => {
    const crd = simpleCrd('patching.example.com', 'widgets', 'Widget') as { spec: { versions: Record<string, unknown>[] } };
    crd.spec.versions[0].subresources = { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } };
    await createEstablished(api, crd);
    expect(
      (
        await api.post('/apis/patching.example.com/v1/namespaces/default/widgets', {
          apiVersion: 'patching.example.com/v1',
          kind: 'Widget',
          metadata: { name: 'w' },
          spec: { replicas: 1 },
        })
      ).status,
    ).toBe(201);
  });

  test('a built-in kind lists strategic merge patch before apply', async () => {
    expect(failure(await api.patch(`${NS}/configmaps/any`, {}, 'application/xml'))).toEqual(unsupported(BUILT_IN));
  });

  test('a custom resource, its status and its scale take no strategic merge patch', async () => {
    const widget = '/apis/patching.example.com/v1/namespaces/default/widgets/w';
    for (const path of [widget, `${widget}/status`, `${widget}/scale`])
      expect(failure(await api.patch(path, { spec: {} }, STRATEGIC))).toEqual(unsupported(CUSTOM));
    expect((await api.patch(`${widget}/scale`, { spec: { replicas: 2 } }, MERGE_PATCH)).status).toBe(200);
  });

  test("a CustomResourceDefinition has a Go type: kubectl patch's default strategic merge patch applies, ObjectMeta's lists merging", async () => {
    const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD}`;
    expect((await api.patch(crdPath, { metadata: { finalizers: ['example.com/first'] } }, MERGE_PATCH)).status).toBe(200);
    const res = await kubectl(server.url, ['patch', 'crd', CRD, '-p', '{"metadata":{"labels":{"patched":"yes"},"finalizers":["example.com/kept"]}}']);
    expect(res).toMatchObject({ code: 0, stdout: `customresourcedefinition.apiextensions.k8s.io/${CRD} patched\n` });
    const crd = (await api.get(crdPath)).body;
    expect(crd.metadata.labels).toEqual({ patched: 'yes' });
    // normalizeElementOrder: the patch's items lead those only the server has
    expect(crd.metadata.finalizers).toEqual(['example.com/kept', 'example.com/first']);
    const doc = await api.get('/openapi/v3/apis/apiextensions.k8s.io/v1');
    expect(Object.keys(doc.body.paths['/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}'].patch.requestBody.content)).toEqual(BUILT_IN);
    const removed = await api.patch(crdPath, { metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/first', 'example.com/kept'] } }, STRATEGIC);
    expect(removed.body.metadata.finalizers).toBeUndefined();
  });
});

describe('server-side apply that creates', () => {
  const APPLY = 'application/apply-patch+yaml';
  const applyConfig = (name: string, uid?: string) =>
    api.request('PATCH', `${NS}/configmaps/${name}?fieldManager=tester`, {
      raw: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${uid ? `  uid: ${uid}\n` : ''}data:\n  a: "1"\n`,
      contentType: APPLY,
    });

  test('a configuration naming a uid cannot create the object: 409, and nothing is stored', async () => {
    expect(failure(await applyConfig('applied-uid', '6f1c1b6e-0000-4000-8000-000000000001'))).toEqual({
      status: 409,
      reason: 'Conflict',
      message:
        'Operation cannot be fulfilled on configmaps "applied-uid": uid mismatch: the provided object specified uid 6f1c1b6e-0000-4000-8000-000000000001, and no existing object was found',
    });
    expect((await api.get(`${NS}/configmaps/applied-uid`)).status).toBe(404);
  });

  test('once the object exists, a configuration naming its uid applies', async () => {
    const created = await applyConfig('applied-uid');
    expect(created.status).toBe(201);
    expect((await applyConfig('applied-uid', created.body.metadata.uid)).status).toBe(200);
  });
});

describe("a write's options: ValidatePatchOptions and ValidateCreateOptions report every error at once", () => {
  const long = 'm'.repeat(129);
  const causes = (res: Reply) => res.body.details.causes.map((c: { field: string; reason: string }) => `${c.field} ${c.reason}`);

  test('a merge patch with force, a long fieldManager and an unknown fieldValidation', async () => {
    const res = await rawPatch(`${NS}/configmaps/any?force=false&fieldManager=${long}&fieldValidation=Loose`, '{}', MERGE_PATCH);
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: [force: Forbidden: may not be specified for non-apply patch, fieldManager: Too long: may not be more than 128 bytes, fieldValidation: Unsupported value: "Loose": supported values: "Ignore", "Warn", "Strict"]',
    );
    expect(causes(res)).toEqual(['force FieldValueForbidden', 'fieldManager FieldValueTooLong', 'fieldValidation FieldValueNotSupported']);
  });

  test('an apply without a fieldManager and an unknown fieldValidation', async () => {
    const res = await rawPatch(`${NS}/configmaps/any?fieldValidation=Loose`, 'apiVersion: v1\nkind: ConfigMap\n', 'application/apply-patch+yaml');
    expect(causes(res)).toEqual(['fieldManager FieldValueRequired', 'fieldValidation FieldValueNotSupported']);
  });

  test('a create with a long fieldManager and an unknown fieldValidation', async () => {
    const res = await api.post(`${NS}/configmaps?fieldManager=${long}&fieldValidation=Loose`, { metadata: { name: 'options' } });
    expect(res.status).toBe(422);
    expect(res.body.details).toMatchObject({ group: 'meta.k8s.io', kind: 'CreateOptions' });
    expect(causes(res)).toEqual(['fieldManager FieldValueTooLong', 'fieldValidation FieldValueNotSupported']);
  });
});

describe('a strategic merge patch value the object lacks, or holds as another type, is taken without its directives (removeDirectives)', () => {
  const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';
  const deployment = `${DEPLOYMENTS}/directives`;
  beforeAll(async () => {
    const created = await api.post(DEPLOYMENTS, {
      metadata: { name: 'directives' },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'd' } },
        template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
      },
    });
    expect(created.status).toBe(201);
  });

  test('a map holding $patch is no value: not set where the object has none, removed where it has another type', async () => {
    const res = await api.patch(deployment, { metadata: { annotations: { $patch: 'replace', a: 'b' } }, spec: { replicas: { $patch: 'delete' } } }, STRATEGIC);
    expect(res.status).toBe(200);
    expect(res.body.metadata.annotations).toBeUndefined();
    // replicas removed, then defaulted as a decoded Deployment is
    expect(res.body.spec.replicas).toBe(1);
  });

  test('a new list leaves out its items that hold $patch, whatever the directive', async () => {
    const res = await api.patch(
      deployment,
      { spec: { template: { spec: { imagePullSecrets: [{ name: 'a' }, { name: 'b', $patch: 'replace' }, { name: 'c', $patch: 'delete' }] } } } },
      STRATEGIC,
    );
    expect(res.status).toBe(200);
    expect(res.body.spec.template.spec.imagePullSecrets).toEqual([{ name: 'a' }]);
  });
});
