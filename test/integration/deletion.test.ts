import { KNOWN_FEATURE_GATES } from '../../src/server/feature-gates';
import { eventually, RawEtcd } from '../harness/etcd-keys';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';
import { openWatch } from '../harness/watch';
import { WITHOUT_WORKLOAD_CONTROLLERS } from '../harness/workload-controllers';

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
let etcd: RawEtcd;
let n = 0;
let ns = '';

beforeAll(async () => {
  server = await startTestServer(WITHOUT_WORKLOAD_CONTROLLERS);
  api = new Api(server.url);
  etcd = new RawEtcd();
});

afterAll(async () => {
  await server.close();
  etcd.close();
});

/** Each test works in a namespace of its own and leaves nothing of it behind in etcd. */
beforeEach(async () => {
  ns = `del-${++n}`;
  expect((await api.post('/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
});

afterEach(async () => {
  await api.delete(`/api/v1/namespaces/${ns}`);
  await eventually(`namespace ${ns} to be gone from etcd`, async () => ((await etcd.namespaceKeys(server.prefix, ns)).length === 0 ? true : undefined));
});

const cm = (name: string, extra: Record<string, unknown> = {}) => ({ metadata: { name, ...extra }, data: { a: '1' } });
const cmPath = (name = '') => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;
const podSpec = { containers: [{ name: 'c', image: 'nginx' }] };
/** What the serviceaccount controller and the root CA publisher put in every namespace, at some moment after its creation. */
const controllerMade = (key: string): boolean => key === `/serviceaccounts/${ns}/default` || key === `/configmaps/${ns}/kube-root-ca.crt`;
const keysOfNs = () => etcd.namespaceKeys(server.prefix, ns).then((keys) => keys.map((k) => k.slice(server.prefix.length)).filter((k) => !controllerMade(k)));
/** The namespace's config maps but the published root CA. */
const ownConfigMaps = async (): Promise<any[]> => (await api.get(cmPath())).body.items.filter((i: any) => i.metadata.name !== 'kube-root-ca.crt');

describe('finalizers', () => {
  test('a delete marks the object and keeps it; new finalizers are refused; the last one removed deletes it', async () => {
    await api.post(cmPath(), cm('held', { finalizers: ['example.com/hold'] }));
    const marked = await api.delete(cmPath('held'));
    expect(marked.status).toBe(200);
    expect(marked.body.kind).toBe('ConfigMap');
    expect(marked.body.metadata.deletionTimestamp).toMatch(/Z$/);
    expect(marked.body.metadata.deletionGracePeriodSeconds).toBe(0);
    const again = await api.delete(cmPath('held'));
    expect(again.body.metadata.deletionTimestamp).toBe(marked.body.metadata.deletionTimestamp);
    expect(await keysOfNs()).toEqual([`/configmaps/${ns}/held`, `/namespaces/${ns}`]);

    const more = await api.put(cmPath('held'), { ...marked.body, metadata: { ...marked.body.metadata, finalizers: ['example.com/hold', 'example.com/more'] } });
    expect(more.status).toBe(422);
    expect(more.body.details.causes).toEqual([
      {
        reason: 'FieldValueForbidden',
        message: 'Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/more"}',
        field: 'metadata.finalizers',
      },
    ]);
    const released = await api.patch(cmPath('held'), { metadata: { finalizers: null } }, 'application/merge-patch+json');
    expect(released.status).toBe(200);
    expect((await api.get(cmPath('held'))).status).toBe(404);
    expect(await keysOfNs()).toEqual([`/namespaces/${ns}`]);
  });

  test('an update that removes the last finalizer deletes the stored object without writing itself, and answers with the update (deleteWithoutFinalizers)', async () => {
    await api.post(cmPath(), cm('emptied', { finalizers: ['example.com/hold'] }));
    const marked = (await api.delete(cmPath('emptied'))).body;
    const rv = marked.metadata.resourceVersion;
    const watch = await openWatch(`${server.url}${cmPath()}?watch=1&resourceVersion=${rv}&fieldSelector=metadata.name%3Demptied`);
    try {
      const dry = await api.patch(`${cmPath('emptied')}?dryRun=All`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
      expect(dry.status).toBe(200);
      expect(dry.body.metadata.finalizers).toBeUndefined();
      expect(dry.body.metadata.deletionTimestamp).toBe(marked.metadata.deletionTimestamp);
      expect((await api.get(cmPath('emptied'))).body.metadata.finalizers).toEqual(['example.com/hold']);
      const released = await api.patch(cmPath('emptied'), { metadata: { finalizers: null } }, 'application/merge-patch+json');
      expect(released.status).toBe(200);
      expect(released.body.metadata.finalizers).toBeUndefined();
      expect(released.body.metadata.resourceVersion).toBe(rv);
      // Watchers see the stored object go, finalizer and all, with no update before.
      const event = await watch.next();
      expect(event.type).toBe('DELETED');
      expect(event.object.metadata.finalizers).toEqual(['example.com/hold']);
    } finally {
      watch.close();
    }
    expect((await api.get(cmPath('emptied'))).status).toBe(404);
  });

  test('deletionTimestamp and deletionGracePeriodSeconds belong to the server', async () => {
    const created = await api.post(cmPath(), cm('own', { deletionTimestamp: '2030-01-01T00:00:00Z', deletionGracePeriodSeconds: 5 }));
    expect(created.body.metadata.deletionTimestamp).toBeUndefined();
    expect(created.body.metadata.deletionGracePeriodSeconds).toBeUndefined();
    const set = await api.put(cmPath('own'), { ...created.body, metadata: { ...created.body.metadata, deletionTimestamp: '2030-01-01T00:00:00Z' } });
    expect(set.status).toBe(422);
    expect(set.body.details.causes[0]).toMatchObject({ reason: 'FieldValueInvalid', field: 'metadata.deletionTimestamp' });
    await api.delete(cmPath('own'));
  });
});

describe('grace periods', () => {
  const pod = (name: string, spec: Record<string, unknown> = {}) => ({ metadata: { name }, spec: { ...podSpec, ...spec } });
  const podPath = (name = '') => `/api/v1/namespaces/${ns}/pods${name ? `/${name}` : ''}`;

  test('a scheduled pod is marked for its grace period, which a later delete may only shorten; 0 removes it', async () => {
    await api.post(podPath(), pod('p', { nodeName: 'node-1' }));
    const first = await api.delete(podPath('p'));
    expect(first.status).toBe(200);
    expect(first.body.metadata.deletionGracePeriodSeconds).toBe(30);
    expect(first.body.metadata.generation).toBe(2);
    expect(Date.parse(first.body.metadata.deletionTimestamp) - Date.now()).toBeGreaterThan(25_000);
    const longer = await api.delete(`${podPath('p')}?gracePeriodSeconds=60`);
    expect(longer.body.metadata.deletionGracePeriodSeconds).toBe(30);
    const shorter = await api.delete(podPath('p'), { body: { gracePeriodSeconds: 10 } });
    expect(shorter.body.metadata.deletionGracePeriodSeconds).toBe(10);
    expect(Date.parse(first.body.metadata.deletionTimestamp) - Date.parse(shorter.body.metadata.deletionTimestamp)).toBe(20_000);
    const now = await api.delete(`${podPath('p')}?gracePeriodSeconds=0`);
    expect(now.status).toBe(200);
    expect(now.body.metadata.deletionGracePeriodSeconds).toBe(0);
    expect((await api.get(podPath('p'))).status).toBe(404);
  });

  test('a shortened grace period that has already run out moves the deletion to now, not into the past (rest.BeforeDelete)', async () => {
    await api.post(podPath(), { ...pod('late', { nodeName: 'node-1' }), metadata: { name: 'late', finalizers: ['example.com/hold'] } });
    const first = await api.delete(podPath('late'));
    expect(first.body.metadata.deletionGracePeriodSeconds).toBe(30);
    // Past the start of the deletion plus one second, so that a one-second period has run out.
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const second = Math.floor(Date.now() / 1000) * 1000;
    const one = await api.delete(`${podPath('late')}?gracePeriodSeconds=1`);
    expect(one.status).toBe(200);
    expect(one.body.metadata.deletionGracePeriodSeconds).toBe(1);
    expect(Date.parse(one.body.metadata.deletionTimestamp)).toBeGreaterThanOrEqual(second);
    const zero = await api.delete(`${podPath('late')}?gracePeriodSeconds=0`);
    expect(zero.status).toBe(200);
    expect(zero.body.metadata.deletionGracePeriodSeconds).toBe(0);
    expect(Date.parse(zero.body.metadata.deletionTimestamp)).toBeGreaterThanOrEqual(second);
    await api.patch(podPath('late'), { metadata: { finalizers: null } }, 'application/merge-patch+json');
    expect((await api.get(podPath('late'))).status).toBe(404);
  });

  test('an unscheduled pod goes at once; a negative grace period counts as one second', async () => {
    await api.post(podPath(), pod('q'));
    const gone = await api.delete(podPath('q'), { body: { gracePeriodSeconds: 30 } });
    expect(gone.status).toBe(200);
    expect((await api.get(podPath('q'))).status).toBe(404);
    await api.post(podPath(), pod('r', { nodeName: 'n', terminationGracePeriodSeconds: 5 }));
    expect((await api.delete(`${podPath('r')}?gracePeriodSeconds=-5`)).body.metadata.deletionGracePeriodSeconds).toBe(1);
    await api.delete(`${podPath('r')}?gracePeriodSeconds=0`);
  });
});

describe('preconditions, dry run and options', () => {
  test('each precondition: a mismatch is 409 and deletes nothing; a match deletes', async () => {
    const c = (await api.post(cmPath(), cm('pre'))).body;
    const uid = await api.delete(cmPath('pre'), { body: { preconditions: { uid: 'other' } } });
    expect(uid.status).toBe(409);
    expect(uid.body).toMatchObject({ reason: 'Conflict', details: { name: 'pre', kind: 'ConfigMap' } });
    expect(uid.body.message).toBe(
      `Operation cannot be fulfilled on ConfigMap "pre": the UID in the precondition (other) does not match the UID in record (${c.metadata.uid}). The object might have been deleted and then recreated`,
    );
    const rv = await api.delete(cmPath('pre'), { body: { preconditions: { resourceVersion: '1' } } });
    expect(rv.status).toBe(409);
    expect(rv.body.message).toBe(
      `Operation cannot be fulfilled on ConfigMap "pre": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${c.metadata.resourceVersion}). The object might have been modified`,
    );
    // Convert_url_Values_To_v1_DeleteOptions: the query's uid and resourceVersion are the preconditions.
    const query = await api.delete(`${cmPath('pre')}?uid=other`);
    expect(query.status).toBe(409);
    const queryRv = await api.delete(`${cmPath('pre')}?resourceVersion=1`);
    expect(queryRv.status).toBe(409);
    expect(queryRv.body.message).toContain('the ResourceVersion in the precondition (1) does not match');
    expect((await api.get(cmPath('pre'))).status).toBe(200);
    // preconditions.uid is no query parameter kube reads: the delete goes ahead.
    expect((await api.post(cmPath(), cm('pre-ignored'))).status).toBe(201);
    expect((await api.delete(`${cmPath('pre-ignored')}?preconditions.uid=other`)).status).toBe(200);
    const ok = await api.delete(cmPath('pre'), { body: { preconditions: { uid: c.metadata.uid, resourceVersion: c.metadata.resourceVersion } } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'pre', kind: 'configmaps', uid: c.metadata.uid },
    });
  });

  test('dryRun deletes nothing; YAML bodies parse; an unknown dryRun is 400, other bad options 422', async () => {
    await api.post(cmPath(), cm('dry', { finalizers: ['example.com/x'] }));
    const dry = await api.delete(`${cmPath('dry')}?dryRun=All`);
    expect(dry.status).toBe(200);
    expect(dry.body.metadata.deletionTimestamp).toBeDefined();
    expect((await api.get(cmPath('dry'))).body.metadata.deletionTimestamp).toBeUndefined();
    const yaml = await api.request('DELETE', cmPath('dry'), { raw: 'kind: DeleteOptions\napiVersion: v1\ndryRun: [All]\n', contentType: 'application/yaml' });
    expect(yaml.status).toBe(200);
    const unknownDryRun = await api.delete(`${cmPath('dry')}?dryRun=Maybe`);
    expect(unknownDryRun.status).toBe(400);
    expect(unknownDryRun.body.message).toBe('DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Maybe"]: supported values: "All"');
    const bad = await api.delete(cmPath('dry'), { body: { propagationPolicy: 'Sideways' } });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"',
    );
    const both = await api.delete(cmPath('dry'), { body: { propagationPolicy: 'Orphan', orphanDependents: true } });
    expect(both.status).toBe(422);
    // ValidateDeleteOptions: both set first, then the policy's value; an empty policy is set too.
    const bothBad = await api.delete(cmPath('dry'), { body: { propagationPolicy: 'Sideways', orphanDependents: false } });
    expect(bothBad.status).toBe(422);
    expect(bothBad.body.message).toBe(
      'DeleteOptions.meta.k8s.io "" is invalid: [propagationPolicy: Invalid value: "Sideways": orphanDependents and deletionPropagation cannot be both set, propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"]',
    );
    const empty = await api.delete(`${cmPath('dry')}?propagationPolicy=&orphanDependents=true`);
    expect(empty.status).toBe(422);
    expect(empty.body.details.causes).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "": orphanDependents and deletionPropagation cannot be both set', field: 'propagationPolicy' },
      {
        reason: 'FieldValueNotSupported',
        message: 'Unsupported value: "": supported values: "Foreground", "Background", "Orphan", "nil"',
        field: 'propagationPolicy',
      },
    ]);
    await api.patch(cmPath('dry'), { metadata: { finalizers: null } }, 'application/merge-patch+json');
  });

  test('a DeleteOptions body is decoded as encoding/json decodes it: the first type error, a null body, JSON that is no object', async () => {
    await api.post(cmPath(), cm('typed'));
    const raw = async (text: string) => {
      const res = await api.request('DELETE', cmPath('typed'), { raw: text, contentType: 'application/json' });
      expect(res.status).toBe(400);
      expect(res.body.reason).toBe('BadRequest');
      return res.body.message;
    };
    expect(await raw('{"gracePeriodSeconds":"5"}')).toBe('json: cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds of type int64');
    expect(await raw('{"gracePeriodSeconds":1.5}')).toBe(
      'json: cannot unmarshal number 1.5 into Go struct field DeleteOptions.gracePeriodSeconds of type int64',
    );
    expect(await raw('{"preconditions":{"uid":5}}')).toBe(
      'json: cannot unmarshal number into Go struct field Preconditions.preconditions.uid of type types.UID',
    );
    expect(await raw('{"preconditions":[]}')).toBe('json: cannot unmarshal array into Go struct field DeleteOptions.preconditions of type v1.Preconditions');
    expect(await raw('{"propagationPolicy":1}')).toBe(
      'json: cannot unmarshal number into Go struct field DeleteOptions.propagationPolicy of type v1.DeletionPropagation',
    );
    expect(await raw('{"dryRun":"All"}')).toBe('json: cannot unmarshal string into Go struct field DeleteOptions.dryRun of type []string');
    expect(await raw('{"dryRun":[true]}')).toBe('json: cannot unmarshal bool into Go struct field DeleteOptions.dryRun of type string');
    // The first error in the body's order.
    expect(await raw('{"orphanDependents":"yes","gracePeriodSeconds":"x"}')).toBe(
      'json: cannot unmarshal string into Go struct field DeleteOptions.orphanDependents of type bool',
    );
    // SimpleMetaFactory.Interpret reads apiVersion and kind first.
    expect(await raw('{"kind":5,"gracePeriodSeconds":"x"}')).toBe(
      "couldn't get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string",
    );
    expect(await raw('[]')).toBe(
      'couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }',
    );
    expect((await api.get(cmPath('typed'))).status).toBe(200);
    // null decodes to empty options: the delete goes ahead.
    const none = await api.request('DELETE', cmPath('typed'), { raw: 'null', contentType: 'application/json' });
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'typed', kind: 'configmaps' } });
    expect((await api.get(cmPath('typed'))).status).toBe(404);
  });

  test('Orphan and Foreground on a deletion set the collector finalizers; events never get them', async () => {
    await api.post(cmPath(), cm('o', { finalizers: ['example.com/x'] }));
    const orphan = await api.delete(`${cmPath('o')}?propagationPolicy=Orphan`);
    expect(orphan.body.metadata.finalizers).toEqual(['example.com/x', 'orphan']);
    const legacy = await api.delete(cmPath('o'), { body: { orphanDependents: false } });
    expect(legacy.status).toBe(202);
    expect(legacy.body.metadata.finalizers).toEqual(['example.com/x']);
    await api.patch(cmPath('o'), { metadata: { finalizers: null } }, 'application/merge-patch+json');
    const ev = await api.post(`/api/v1/namespaces/${ns}/events`, {
      metadata: { name: 'e', finalizers: ['example.com/x'] },
      involvedObject: { kind: 'Pod', name: 'p', namespace: ns },
    });
    expect(ev.status).toBe(201);
    const marked = await api.delete(`/api/v1/namespaces/${ns}/events/e?propagationPolicy=Foreground`);
    expect(marked.body.metadata.finalizers).toEqual(['example.com/x']);
    await api.patch(`/api/v1/namespaces/${ns}/events/e`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
  });

  test("deletecollection without a body reads the query's uid and resourceVersion as each item's preconditions", async () => {
    const a = (await api.post(cmPath(), cm('a', { labels: { group: 'x' } }))).body;
    const b = (await api.post(cmPath(), cm('b', { labels: { group: 'x' } }))).body;
    // Convert_url_Values_To_v1_DeleteOptions: every item's delete checks the uid; the first conflict ends the collection's.
    const uid = await api.delete(`${cmPath()}?labelSelector=group%3Dx&uid=other`);
    expect(uid.status).toBe(409);
    expect(uid.body.message).toBe(
      `Operation cannot be fulfilled on ConfigMap "a": the UID in the precondition (other) does not match the UID in record (${a.metadata.uid}). The object might have been deleted and then recreated`,
    );
    expect((await ownConfigMaps()).map((i: any) => i.metadata.name)).toEqual(['a', 'b']);
    // a's resourceVersion is the list's and a precondition: a goes, b conflicts and stays.
    const rv = await api.delete(`${cmPath()}?labelSelector=group%3Dx&resourceVersion=${a.metadata.resourceVersion}`);
    expect(rv.status).toBe(409);
    expect(rv.body).toMatchObject({ reason: 'Conflict', details: { name: 'b', kind: 'ConfigMap' } });
    expect(rv.body.message).toBe(
      `Operation cannot be fulfilled on ConfigMap "b": the ResourceVersion in the precondition (${a.metadata.resourceVersion}) does not match the ResourceVersion in record (${b.metadata.resourceVersion}). The object might have been modified`,
    );
    expect((await ownConfigMaps()).map((i: any) => i.metadata.name)).toEqual(['b']);
    // With DeleteOptions in the body, the query is the list's only.
    const body = await api.delete(`${cmPath()}?labelSelector=group%3Dx&resourceVersion=${a.metadata.resourceVersion}`, {
      body: { kind: 'DeleteOptions', apiVersion: 'v1' },
    });
    expect(body.status).toBe(200);
    expect(body.body.items.map((i: any) => i.metadata.name)).toEqual(['b']);
    expect(await ownConfigMaps()).toEqual([]);
  });

  test('deletecollection deletes what label and field selectors match, with the delete options', async () => {
    for (const [name, group] of [
      ['a', 'x'],
      ['b', 'x'],
      ['c', 'y'],
    ])
      await api.post(cmPath(), cm(name, { labels: { group } }));
    await api.post(cmPath(), cm('d', { labels: { group: 'x' }, finalizers: ['example.com/x'] }));
    const dry = await api.delete(`${cmPath()}?labelSelector=group%3Dx&dryRun=All`);
    expect(dry.body.items.map((i: any) => i.metadata.name)).toEqual(['a', 'b', 'd']);
    expect(await ownConfigMaps()).toHaveLength(4);
    const res = await api.delete(`${cmPath()}?labelSelector=group%3Dx&fieldSelector=metadata.name!%3Db&propagationPolicy=Orphan`);
    expect(res.status).toBe(200);
    expect(res.body.kind).toBe('ConfigMapList');
    expect(res.body.items.map((i: any) => i.metadata.name)).toEqual(['a', 'd']);
    // a got the orphan finalizer too and stays until the collector has orphaned its (no) dependents.
    const left = await eventually('a to be gone', async () => {
      const items = await ownConfigMaps();
      return items.length === 3 ? items : undefined;
    });
    expect(left.map((i: any) => i.metadata.name)).toEqual(['b', 'c', 'd']);
    expect(left.find((i: any) => i.metadata.name === 'd').metadata.deletionTimestamp).toBeDefined();
    // The orphan finalizer is the collector's to remove once d's (no) dependents are orphaned.
    await eventually('the collector to orphan', async () => ((await api.get(cmPath('d'))).body.metadata.finalizers.length === 1 ? true : undefined));
    await api.patch(cmPath('d'), { metadata: { finalizers: null } }, 'application/merge-patch+json');
    expect(await keysOfNs()).toEqual([`/configmaps/${ns}/b`, `/configmaps/${ns}/c`, `/namespaces/${ns}`]);
  });

  test("deletecollection with watch=1 defaults and validates its ListOptions as a watch's (kube's DeleteCollection handler), then deletes", async () => {
    for (const name of ['w1', 'w2']) await api.post(cmPath(), cm(name, { labels: { group: 'w' } }));
    const refused = await api.delete(`${cmPath()}?watch=1&resourceVersion=1&resourceVersionMatch=Exact`);
    expect(refused.status).toBe(422);
    expect(refused.body.message).toBe(
      'ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]',
    );
    expect(await ownConfigMaps()).toHaveLength(2);
    // A watch's options: a streaming list's parameters are allowed, and the list they select is deleted.
    const streaming = await api.delete(`${cmPath()}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&labelSelector=group%3Dw&dryRun=All`);
    expect(streaming.status).toBe(200);
    expect(streaming.body.items.map((i: any) => i.metadata.name)).toEqual(['w1', 'w2']);
    expect(await ownConfigMaps()).toHaveLength(2);
    // From "" a watch becomes a streaming list (SetListOptionsDefaults), which a continue token then contradicts.
    const continued = await api.delete(`${cmPath()}?watch=true&continue=abc`);
    expect(continued.status).toBe(422);
    expect(continued.body.message).toBe(
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided',
    );
    const deleted = await api.delete(`${cmPath()}?watch=1&labelSelector=group%3Dw`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.items.map((i: any) => i.metadata.name)).toEqual(['w1', 'w2']);
    expect(await ownConfigMaps()).toHaveLength(0);
  });

  test('without the WatchList gate, sendInitialEvents is refused within the same ListOptions validation, for a watch and a deletecollection alike', async () => {
    const off = await startTestServer({ ...WITHOUT_WORKLOAD_CONTROLLERS, featureGates: { ...KNOWN_FEATURE_GATES, WatchList: false } });
    try {
      const offApi = new Api(off.url);
      const gate = 'sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled';
      const collection = await offApi.delete(
        '/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&dryRun=All',
      );
      expect(collection.status).toBe(422);
      expect(collection.body.message).toBe(`ListOptions.meta.k8s.io "" is invalid: ${gate}`);
      const watch = await offApi.get('/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true');
      expect(watch.status).toBe(422);
      expect(watch.body.message).toBe(
        `ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, ${gate}]`,
      );
    } finally {
      await off.close();
    }
  });
});

describe('what a delete answers', () => {
  test('kinds whose registry sets ReturnDeletedObject answer with the object; others with a Status naming group, resource, name and uid', async () => {
    const unheld = async (path: string, body: Record<string, any>) => {
      const created = await api.post(path, body);
      expect(created.status).toBe(201);
      // The storage-protection admission's finalizers would hold PVs and PVCs: released first.
      if (created.body.metadata.finalizers)
        await api.patch(`${path}/${body.metadata.name}`, { metadata: { finalizers: null } }, 'application/merge-patch+json');
      const res = await api.delete(`${path}/${body.metadata.name}`);
      expect(res.status).toBe(200);
      return res.body;
    };
    const storage = '/apis/storage.k8s.io/v1';
    const objects: [string, Record<string, any>, string][] = [
      [`${storage}/storageclasses`, { metadata: { name: `${ns}-sc` }, provisioner: 'example.com/p' }, 'StorageClass'],
      [`${storage}/csidrivers`, { metadata: { name: `${ns}.csi.example.com` }, spec: {} }, 'CSIDriver'],
      [`${storage}/csinodes`, { metadata: { name: `${ns}-node` }, spec: { drivers: [] } }, 'CSINode'],
      [
        `${storage}/volumeattachments`,
        { metadata: { name: `${ns}-va` }, spec: { attacher: 'a', nodeName: 'n', source: { persistentVolumeName: 'pv' } } },
        'VolumeAttachment',
      ],
      [
        '/api/v1/persistentvolumes',
        { metadata: { name: `${ns}-pv` }, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp' } } },
        'PersistentVolume',
      ],
      [
        `/api/v1/namespaces/${ns}/persistentvolumeclaims`,
        { metadata: { name: 'claim' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
        'PersistentVolumeClaim',
      ],
    ];
    for (const [path, body, kind] of objects) {
      const deleted = await unheld(path, body);
      expect({ kind: deleted.kind, name: deleted.metadata?.name }).toEqual({ kind, name: body.metadata.name });
    }
    const status = await unheld(`${storage}/namespaces/${ns}/csistoragecapacities`, {
      metadata: { name: 'capacity' },
      storageClassName: 'sc',
    });
    expect(status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'capacity', group: 'storage.k8s.io', kind: 'csistoragecapacities', uid: expect.any(String) },
    });
  });
});

describe('propagation through a deployment -> replicaset -> pods chain', () => {
  const labels = { app: 'web' };
  async function chain(): Promise<{ deploy: any; rs: any; pods: any[] }> {
    const deploy = (
      await api.post(`/apis/apps/v1/namespaces/${ns}/deployments`, {
        metadata: { name: 'web' },
        spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: podSpec } },
      })
    ).body;
    const owner = (o: any, kind: string, apiVersion: string) => [
      { apiVersion, kind, name: o.metadata.name, uid: o.metadata.uid, controller: true, blockOwnerDeletion: true },
    ];
    const rs = (
      await api.post(`/apis/apps/v1/namespaces/${ns}/replicasets`, {
        metadata: { name: 'web-1', labels, ownerReferences: owner(deploy, 'Deployment', 'apps/v1') },
        spec: { replicas: 2, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: podSpec } },
      })
    ).body;
    const pods = [];
    for (const name of ['web-1-a', 'web-1-b']) {
      pods.push(
        (await api.post(`/api/v1/namespaces/${ns}/pods`, { metadata: { name, labels, ownerReferences: owner(rs, 'ReplicaSet', 'apps/v1') }, spec: podSpec }))
          .body,
      );
    }
    expect(pods.every((p) => p.metadata.uid)).toBe(true);
    return { deploy, rs, pods };
  }
  const workloadKeys = async () =>
    (await keysOfNs()).filter((k) => !k.startsWith('/namespaces/') && !k.startsWith('/serviceaccounts/') && !k.startsWith('/configmaps/'));

  test('Background: the owner goes at once, then the collector removes the replicaset and its pods', async () => {
    await chain();
    const res = await api.delete(`/apis/apps/v1/namespaces/${ns}/deployments/web`, { body: { propagationPolicy: 'Background' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'web', group: 'apps', kind: 'deployments' } });
    await eventually('the chain to be collected', async () => ((await workloadKeys()).length === 0 ? true : undefined));
  });

  test('Foreground: the owner waits, with the foregroundDeletion finalizer, for its blocking dependents', async () => {
    await chain();
    const res = await api.delete(`/apis/apps/v1/namespaces/${ns}/deployments/web`, { body: { propagationPolicy: 'Foreground' } });
    expect(res.status).toBe(200);
    expect(res.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(res.body.metadata.deletionTimestamp).toBeDefined();
    await eventually('the chain to be collected', async () => ((await workloadKeys()).length === 0 ? true : undefined));
  });

  test('Orphan: dependents lose the reference and stay; the owner goes', async () => {
    const { rs } = await chain();
    const res = await api.delete(`/apis/apps/v1/namespaces/${ns}/deployments/web?propagationPolicy=Orphan`);
    expect(res.body.metadata.finalizers).toEqual(['orphan']);
    await eventually('the deployment to go', async () => ((await api.get(`/apis/apps/v1/namespaces/${ns}/deployments/web`)).status === 404 ? true : undefined));
    const kept = (await api.get(`/apis/apps/v1/namespaces/${ns}/replicasets/web-1`)).body;
    expect(kept.metadata.uid).toBe(rs.metadata.uid);
    expect(kept.metadata.ownerReferences).toBeUndefined();
    const pods = (await api.get(`/api/v1/namespaces/${ns}/pods`)).body.items;
    expect(pods.map((p: any) => p.metadata.ownerReferences[0].uid)).toEqual([rs.metadata.uid, rs.metadata.uid]);
    expect(await workloadKeys()).toEqual([`/pods/${ns}/web-1-a`, `/pods/${ns}/web-1-b`, `/replicasets/${ns}/web-1`]);
  });

  test('the deprecated orphanDependents=true orphans as well; an owner reference to a missing owner is collected', async () => {
    const { rs } = await chain();
    await api.delete(`/apis/apps/v1/namespaces/${ns}/deployments/web`, { body: { orphanDependents: true } });
    await eventually('the replicaset to be orphaned', async () =>
      (await api.get(`/apis/apps/v1/namespaces/${ns}/replicasets/web-1`)).body.metadata.ownerReferences ? undefined : true,
    );
    await api.post(
      `/api/v1/namespaces/${ns}/configmaps`,
      cm('stray', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'nobody', uid: 'f0f0f0f0-0000-0000-0000-000000000000' }] }),
    );
    await eventually('the stray dependent to be collected', async () => ((await api.get(cmPath('stray'))).status === 404 ? true : undefined));
    expect((await api.get(`/apis/apps/v1/namespaces/${ns}/replicasets/web-1`)).body.metadata.uid).toBe(rs.metadata.uid);
  });

  test('events are not collected: an event owned by a missing owner stays, while a ConfigMap so owned goes', async () => {
    const nobody = [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'nobody', uid: 'f1f1f1f1-0000-0000-0000-000000000000' }];
    const ev = await api.post(`/api/v1/namespaces/${ns}/events`, {
      metadata: { name: 'owned', ownerReferences: nobody },
      involvedObject: { kind: 'ConfigMap', name: 'nobody', namespace: ns },
    });
    expect(ev.status).toBe(201);
    await api.post(`/api/v1/namespaces/${ns}/configmaps`, cm('stray', { ownerReferences: nobody }));
    await eventually('the stray dependent to be collected', async () => ((await api.get(cmPath('stray'))).status === 404 ? true : undefined));
    // garbagecollector.DefaultIgnoredResources: the collector does not watch events at all.
    expect((await api.get(`/api/v1/namespaces/${ns}/events/owned`)).status).toBe(200);
  });
});

describe('namespaces', () => {
  test('default, kube-system, kube-public and kube-node-lease cannot be deleted', async () => {
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      const res = await api.delete(`/api/v1/namespaces/${name}`);
      expect(res.status).toBe(403);
      expect(res.body.message).toBe(`namespaces "${name}" is forbidden: this namespace may not be deleted`);
    }
  });

  test('hundreds of objects of several kinds are deleted; a finalizer holds the namespace until it is released', async () => {
    const kinds: [string, (i: number) => unknown][] = [
      ['/api/v1/namespaces/NS/configmaps', (i) => cm(`cm-${i}`)],
      ['/api/v1/namespaces/NS/secrets', (i) => ({ metadata: { name: `s-${i}` }, stringData: { k: 'v' } })],
      ['/api/v1/namespaces/NS/serviceaccounts', (i) => ({ metadata: { name: `sa-${i}` } })],
      ['/apis/coordination.k8s.io/v1/namespaces/NS/leases', (i) => ({ metadata: { name: `l-${i}` }, spec: {} })],
    ];
    for (const [path, make] of kinds) {
      for (let i = 0; i < 80; i++) expect((await api.post(path.replace('NS', ns), make(i))).status).toBe(201);
    }
    await api.post(cmPath(), cm('keeper', { finalizers: ['example.com/keep'] }));
    const del = await api.delete(`/api/v1/namespaces/${ns}`);
    expect(del.status).toBe(200);
    expect(del.body.status.phase).toBe('Terminating');
    expect(del.body.spec.finalizers).toEqual(['kubernetes']);
    const refused = await api.post(cmPath(), cm('late'));
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      reason: 'Forbidden',
      message: `configmaps "late" is forbidden: unable to create new content in namespace ${ns} because it is being terminated`,
      details: { causes: [{ reason: 'NamespaceTerminating', message: `namespace ${ns} is being terminated`, field: 'metadata.namespace' }] },
    });
    const conditions = await eventually('only the held configmap to remain', async () => {
      const got = (await api.get(`/api/v1/namespaces/${ns}`)).body;
      const remaining = got.status.conditions?.find((c: any) => c.type === 'NamespaceContentRemaining');
      return remaining?.message === 'Some resources are remaining: configmaps. has 1 resource instances' ? got.status.conditions : undefined;
    });
    expect(conditions.map((c: any) => [c.type, c.status, c.reason])).toEqual([
      ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered'],
      ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions'],
      ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted'],
      ['NamespaceContentRemaining', 'True', 'SomeResourcesRemain'],
      ['NamespaceFinalizersRemaining', 'True', 'SomeFinalizersRemain'],
    ]);
    expect(conditions[4].message).toBe('Some content in the namespace has finalizers remaining: example.com/keep in 1 resource instances');
    expect(await keysOfNs()).toEqual([`/configmaps/${ns}/keeper`, `/namespaces/${ns}`]);
    expect((await api.delete(`/api/v1/namespaces/${ns}`)).body.metadata.deletionTimestamp).toBe(del.body.metadata.deletionTimestamp);
    await api.patch(cmPath('keeper'), { metadata: { finalizers: null } }, 'application/merge-patch+json');
    await eventually('the namespace to go', async () => ((await api.get(`/api/v1/namespaces/${ns}`)).status === 404 ? true : undefined));
  });
});
