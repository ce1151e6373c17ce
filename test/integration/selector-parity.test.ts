import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';
import { createEstablished, eventually, simpleCrd } from '../harness/crds';
import { initialEvents, openWatch } from '../harness/watch';

/**
 * Selector and list-option answers compared against kube-apiserver 1.36 (apimachinery v0.36.3): the texts of
 * parse and validation errors, which field labels each kind converts, and the order the checks run in.
 */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
const NS = '/api/v1/namespaces/parity';

beforeAll(async () => {
  server = await startTestServer();
  api = new Api(server.url);
  await api.post('/api/v1/namespaces', { metadata: { name: 'parity' } });
});

afterAll(async () => {
  await server.close();
});

async function message(path: string, code: number): Promise<string> {
  const res = await api.get(path);
  expect([path, res.status]).toEqual([path, code]);
  return res.body.message as string;
}

describe('label selectors', () => {
  test('an unknown operator lists the operators labels.Parse accepts', async () => {
    expect(await message(`${NS}/configmaps?labelSelector=a%20b`, 400)).toBe("unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt");
  });

  test('keys and values are checked by content.IsLabelKey and content.IsLabelValue, lengths in bytes', async () => {
    expect(await message(`${NS}/configmaps?labelSelector=a/b/c`, 400)).toBe(
      'unable to parse requirement: <nil>: Invalid value: "a/b/c": a valid label key must consist of alphanumeric ' +
        "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or " +
        "'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an " +
        "optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    );
    expect(await message(`${NS}/configmaps?labelSelector=${'k'.repeat(64)}`, 400)).toBe(
      `unable to parse requirement: <nil>: Invalid value: "${'k'.repeat(64)}": name part must be no more than 63 bytes`,
    );
    const value = 'a'.repeat(62) + 'é';
    const res = await api.post(`${NS}/configmaps`, { metadata: { name: 'long-label', labels: { k: value } } });
    expect(res.status).toBe(422);
    expect(res.body.message).toContain(`metadata.labels: Invalid value: "${value}": must be no more than 63 bytes`);
  });
});

describe('field labels', () => {
  test("a refused label is answered in the words of the kind's conversion func, with no client-side prefix", async () => {
    const cases: [string, string][] = [
      [`${NS}/pods?fieldSelector=foo%3Dx`, 'field label not supported: foo'],
      ['/api/v1/nodes?fieldSelector=foo%3Dx', 'field label not supported: foo'],
      [`${NS}/replicationcontrollers?fieldSelector=foo%3Dx`, 'field label not supported: foo'],
      [`/apis/events.k8s.io/v1/namespaces/parity/events?fieldSelector=foo%3Dx`, 'field label not supported: foo'],
      ['/apis/certificates.k8s.io/v1/certificatesigningrequests?fieldSelector=foo%3Dx', 'field label not supported: foo'],
      [`/apis/batch/v1/namespaces/parity/jobs?fieldSelector=foo%3Dx`, 'field label "foo" not supported for Job'],
      [`${NS}/configmaps?fieldSelector=foo%3Dx`, '"foo" is not a known field selector: only "metadata.name", "metadata.namespace"'],
      [
        '/apis/apps/v1/deployments?fieldSelector=spec.replicas%3D1',
        '"spec.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"',
      ],
    ];
    for (const [path, text] of cases) expect(await message(path, 400)).toBe(text);
    // the same for watches and for deletecollection
    expect(await message(`${NS}/configmaps?watch=1&fieldSelector=foo%3Dx`, 400)).toBe(cases[6][1]);
    const del = await api.delete(`${NS}/pods?fieldSelector=foo%3Dx`);
    expect([del.status, del.body.message]).toEqual([400, 'field label not supported: foo']);
  });

  test('labels kube admits that were refused: RC, Job, CSR, spec.host on pods, events.k8s.io Events', async () => {
    const pod = (name: string, nodeName?: string) => ({
      metadata: { name },
      spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'busybox' }] },
    });
    expect((await api.post(`${NS}/pods`, pod('on-n1', 'n1'))).status).toBe(201);
    expect((await api.post(`${NS}/pods`, pod('nowhere'))).status).toBe(201);
    const byHost = await api.get(`${NS}/pods?fieldSelector=spec.host%3Dn1`);
    expect([byHost.status, byHost.body.items?.map((p: any) => p.metadata.name)]).toEqual([200, ['on-n1']]);

    for (const path of [
      `${NS}/replicationcontrollers?fieldSelector=status.replicas%3D0`,
      '/apis/batch/v1/namespaces/parity/jobs?fieldSelector=status.successful%3D0',
      '/apis/certificates.k8s.io/v1/certificatesigningrequests?fieldSelector=spec.signerName%3Dexample.com/x',
    ]) {
      expect([path, (await api.get(path)).status]).toEqual([path, 200]);
    }

    const event = {
      metadata: { name: 'ev1' },
      involvedObject: { kind: 'Pod', name: 'on-n1', namespace: 'parity' },
      reason: 'Tested',
      type: 'Normal',
      reportingComponent: 'parity-test',
      source: { component: 'parity-test' },
    };
    expect((await api.post(`${NS}/events`, event)).status).toBe(201);
    const V1 = '/apis/events.k8s.io/v1/namespaces/parity/events';
    const selected = await api.get(
      `${V1}?fieldSelector=${encodeURIComponent('regarding.kind=Pod,regarding.name=on-n1,reportingController=parity-test,reason=Tested,type=Normal,source=parity-test')}`,
    );
    expect([selected.status, selected.body.items?.map((e: any) => e.metadata.name)]).toEqual([200, ['ev1']]);
    const none = await api.get(`${V1}?fieldSelector=regarding.name%3Dother`);
    expect([none.status, none.body.items]).toEqual([200, []]);
    // the core names are not labels of events.k8s.io/v1
    expect(await message(`${V1}?fieldSelector=involvedObject.kind%3DPod`, 400)).toBe('field label not supported: involvedObject.kind');
    // kube has no conversion func for ReplicaSet: status.replicas stays refused
    expect(await message('/apis/apps/v1/replicasets?fieldSelector=status.replicas%3D0', 400)).toBe(
      '"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );
  });

  test('metadata.namespace is refused where the conversion func leaves it out', async () => {
    const cluster = simpleCrd('parity.example.com', 'globals', 'Global');
    (cluster.spec as { scope: string }).scope = 'Cluster';
    await createEstablished(api, cluster);
    await createEstablished(api, simpleCrd('parity.example.com', 'locals', 'Local'));
    const q = 'fieldSelector=metadata.namespace%3D';
    for (const path of [
      `/api/v1/nodes?${q}`,
      `/api/v1/namespaces?${q}`,
      `/apis/certificates.k8s.io/v1/certificatesigningrequests?${q}`,
      `/apis/resource.k8s.io/v1/resourceslices?${q}`,
      `/apis/parity.example.com/v1/globals?${q}`,
    ]) {
      expect(await message(path, 400)).toBe('field label not supported: metadata.namespace');
    }
    // cluster-scoped kinds without a conversion func, namespaced custom resources: admitted
    for (const path of [`/apis/rbac.authorization.k8s.io/v1/clusterroles?${q}`, `/apis/parity.example.com/v1/locals?${q}`]) {
      await eventually(`${path} served`, async () => ((await api.get(path)).status === 200 ? true : undefined));
    }
  });
});

describe('list and delete options', () => {
  test('an integer parameter present but empty is a strconv.ParseInt error, as any unparsable one', async () => {
    const text = 'strconv.ParseInt: parsing "": invalid syntax';
    expect(await message(`${NS}/configmaps?limit=`, 400)).toBe(text);
    expect(await message(`${NS}/configmaps?watch=1&timeoutSeconds=`, 400)).toBe(text);
    expect((await api.post(`${NS}/configmaps`, { metadata: { name: 'grace' } })).status).toBe(201);
    const del = await api.delete(`${NS}/configmaps/grace?gracePeriodSeconds=`);
    expect([del.status, del.body.reason, del.body.message]).toEqual([400, 'BadRequest', text]);
    expect((await api.get(`${NS}/configmaps/grace`)).status).toBe(200);
  });

  test('a field selector term with neither field nor value is dropped, as fields.ParseSelector drops it', async () => {
    expect((await api.post(`${NS}/configmaps`, { metadata: { name: 'term-x' } })).status).toBe(201);
    for (const selector of ['=', '!=', '==']) {
      const res = await api.get(`${NS}/configmaps?fieldSelector=${encodeURIComponent(selector)}`);
      expect([selector, res.status]).toEqual([selector, 200]);
      expect(res.body.items.map((i: any) => i.metadata.name)).toContain('term-x');
    }
    const one = await api.get(`${NS}/configmaps?fieldSelector=${encodeURIComponent('=,metadata.name=term-x')}`);
    expect([one.status, one.body.items?.map((i: any) => i.metadata.name)]).toEqual([200, ['term-x']]);
    // a value without a field is still a label the conversion refuses
    expect(await message(`${NS}/pods?fieldSelector=${encodeURIComponent('=x')}`, 400)).toBe('field label not supported: ');
  });

  test('options are checked in listOpts order: decode errors, then every validation error at once, then field labels', async () => {
    const CM = `${NS}/configmaps`;
    const parse = (v: string) => `strconv.ParseInt: parsing "${v}": invalid syntax`;
    // decoding: timeoutSeconds, limit, the label selector, the field selector
    expect(await message(`${CM}?limit=l&timeoutSeconds=t`, 400)).toBe(parse('t'));
    expect(await message(`${CM}?labelSelector=a%20b&limit=l`, 400)).toBe(parse('l'));
    expect(await message(`${CM}?fieldSelector=a&labelSelector=a%20b`, 400)).toMatch(/^unable to parse requirement: /);
    expect(await message(`${CM}?resourceVersionMatch=Bogus&fieldSelector=a`, 400)).toBe("invalid selector: 'a'; can't understand 'a'");
    // validation: one 422 with all of them, the unsupported value among the others
    const res = await api.get(`${CM}?resourceVersionMatch=Bogus&continue=x`);
    expect(res.status).toBe(422);
    expect(res.body.details.causes.map((c: any) => c.message)).toEqual([
      'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
      'Forbidden: resourceVersionMatch is forbidden when continue is provided',
      'Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""',
    ]);
    // the field labels are converted after validation, for lists, watches and deletecollection
    const pods = `${NS}/pods?fieldSelector=foo%3Dx&resourceVersionMatch=Bogus&resourceVersion=1`;
    expect(await message(pods, 422)).toMatch(/resourceVersionMatch: Unsupported value: "Bogus"/);
    expect(await message(`${pods}&watch=1`, 422)).toMatch(/resourceVersionMatch: Unsupported value: "Bogus"/);
    const del = await api.delete(pods);
    expect(del.status).toBe(422);
  });

  test('deletecollection without a limit starts from its continue token', async () => {
    const CM = `${NS}/configmaps`;
    const bad = await api.delete(`${CM}?continue=abc`);
    expect([bad.status, bad.body.message]).toEqual([400, expect.stringMatching(/^invalid continue token: /)]);
    for (const name of ['dc-a', 'dc-b', 'dc-c']) {
      expect((await api.post(CM, { metadata: { name, labels: { dc: 'yes' } } })).status).toBe(201);
    }
    const first = await api.get(`${CM}?labelSelector=dc%3Dyes&limit=1`);
    expect(first.body.items.map((i: any) => i.metadata.name)).toEqual(['dc-a']);
    const del = await api.delete(`${CM}?labelSelector=dc%3Dyes&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    expect([del.status, del.body.items?.map((i: any) => i.metadata.name)]).toEqual([200, ['dc-b', 'dc-c']]);
    const left = await api.get(`${CM}?labelSelector=dc%3Dyes`);
    expect(left.body.items.map((i: any) => i.metadata.name)).toEqual(['dc-a']);
  });
});

describe('SetListOptionsDefaults (WatchList on)', () => {
  test('a watch from "" or "0" is a streaming list: its initial events end with the initial-events-end bookmark', async () => {
    for (const name of ['w1', 'w2']) {
      expect((await api.post(`${NS}/configmaps`, { metadata: { name, labels: { streamed: 'yes' } } })).status).toBe(201);
    }
    for (const rv of ['', '&resourceVersion=0']) {
      const watch = await openWatch(`${server.url}${NS}/configmaps?watch=1&allowWatchBookmarks=true&labelSelector=streamed%3Dyes${rv}`);
      try {
        const { added, after: event } = await initialEvents(watch);
        expect([rv, added.sort()]).toEqual([rv, ['w1', 'w2']]);
        expect(event.type).toBe('BOOKMARK');
        expect(event.object.metadata.annotations).toEqual({ 'k8s.io/initial-events-end': 'true' });
      } finally {
        watch.close();
      }
    }
  });

  test('so a watch with a continue token meets the resourceVersionMatch rule', async () => {
    const res = await api.get(`${NS}/configmaps?watch=1&continue=abc`);
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided',
    );
  });
});

describe('names', () => {
  test('a DNS label that is a valid subdomain is told it must not contain dots (validation.IsDNS1123Label)', async () => {
    const res = await api.post('/api/v1/namespaces', { metadata: { name: 'a.b' } });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": must not contain dots');
  });
});
