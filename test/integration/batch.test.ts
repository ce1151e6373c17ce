import { decodeProtobuf } from '../../src/codec/protobuf';
import { encodeProtobuf } from '../../src/codec/protobuf-write';
import { causes } from '../harness/causes';
import { RawEtcd } from '../harness/etcd-keys';
import { Api } from '../harness/http';
import { startTestServer } from '../harness/server';

/** batch/v1 jobs and cronjobs: stored, defaulted and validated as kube-apiserver does. */

let server: Awaited<ReturnType<typeof startTestServer>>;
let api: Api;
let etcd: RawEtcd;
const BATCH = '/apis/batch/v1';
const JOBS = `${BATCH}/namespaces/default/jobs`;
const CRONJOBS = `${BATCH}/namespaces/default/cronjobs`;
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

beforeAll(async () => {
  // The API's own handling of jobs: the job controllers would write their status meanwhile.
  server = await startTestServer({ controllers: ['*', '-job-controller', '-cronjob-controller'] });
  api = new Api(server.url);
  etcd = new RawEtcd();
});

afterAll(async () => {
  etcd.close();
  await server.close();
});

const podTemplate = (restartPolicy?: string) => ({ spec: { containers: [{ name: 'main', image: 'busybox' }], ...(restartPolicy ? { restartPolicy } : {}) } });
const job = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name },
  spec: { template: podTemplate('Never'), ...spec },
});
const cronJob = (name: string, spec: Record<string, unknown> = {}) => ({
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name },
  spec: { schedule: '0 3 * * *', jobTemplate: { spec: { template: podTemplate('OnFailure') } }, ...spec },
});

test('discovery serves jobs and cronjobs with their status subresources, in category all, cronjobs as cj', async () => {
  const res = await api.get(BATCH);
  expect(res.status).toBe(200);
  const resources = (res.body.resources as { name: string; namespaced: boolean; kind: string; shortNames?: string[]; categories?: string[] }[]).map((r) => [
    r.name,
    r.kind,
    r.namespaced,
    r.shortNames ?? [],
    r.categories ?? [],
  ]);
  expect(resources).toEqual([
    ['cronjobs', 'CronJob', true, ['cj'], ['all']],
    ['cronjobs/status', 'CronJob', true, [], []],
    ['jobs', 'Job', true, [], ['all']],
    ['jobs/status', 'Job', true, [], []],
  ]);
  const groups = (await api.get('/apis')).body.groups.map((g: { name: string }) => g.name);
  expect(groups.indexOf('batch')).toBe(groups.indexOf('autoscaling') + 1);
});

test('a Job is stored under /registry/jobs with its defaults, a generated selector and the generated labels', async () => {
  const res = await api.post(JOBS, job('pi'));
  expect(res.status).toBe(201);
  const uid = res.body.metadata.uid as string;
  const generated = { 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': 'pi', 'controller-uid': uid, 'job-name': 'pi' };
  expect(res.body.metadata.labels).toEqual(generated);
  expect(res.body.metadata.generation).toBe(1);
  expect(res.body.spec).toEqual({
    parallelism: 1,
    completions: 1,
    backoffLimit: 6,
    selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } },
    template: {
      metadata: { labels: generated },
      spec: {
        containers: [
          {
            name: 'main',
            image: 'busybox',
            resources: {},
            terminationMessagePath: '/dev/termination-log',
            terminationMessagePolicy: 'File',
            imagePullPolicy: 'Always',
          },
        ],
        restartPolicy: 'Never',
        terminationGracePeriodSeconds: 30,
        dnsPolicy: 'ClusterFirst',
        securityContext: {},
        schedulerName: 'default-scheduler',
      },
    },
    completionMode: 'NonIndexed',
    suspend: false,
    podReplacementPolicy: 'TerminatingOrFailed',
  });
  expect(res.body.status).toEqual({});
  expect(await etcd.keys(`${server.prefix}/jobs/`)).toEqual([`${server.prefix}/jobs/default/pi`]);
});

test('a manual selector must match the template, and a job without restartPolicy is refused', async () => {
  const manual = await api.post(JOBS, job('manual', { manualSelector: true, selector: { matchLabels: { app: 'x' } } }));
  expect(manual.status).toBe(422);
  expect(causes(manual.body)).toEqual(['FieldValueInvalid spec.template.metadata.labels: Invalid value: {}: `selector` does not match template `labels`']);
  const bad = await api.post(JOBS, job('bad', { parallelism: -1, template: podTemplate() }));
  expect(bad.status).toBe(422);
  expect(bad.body.message).toBe(
    'Job.batch "bad" is invalid: [spec.parallelism: Invalid value: -1: must be greater than or equal to 0, spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"]',
  );
  const indexed = await api.post(JOBS, job('indexed', { completionMode: 'Indexed', parallelism: 2 }));
  expect(causes(indexed.body)).toEqual(['FieldValueRequired spec.completions: Required value: when completion mode is Indexed']);
  const mode = await api.post(JOBS, job('mode', { completionMode: 'Sometimes' }));
  expect(causes(mode.body)).toEqual(['FieldValueNotSupported spec.completionMode: Unsupported value: "Sometimes": supported values: "NonIndexed", "Indexed"']);
  expect((await api.get(`${JOBS}/bad`)).status).toBe(404);
});

test('completions, the selector and the template are immutable; a suspended job may change its node selector', async () => {
  const created = (await api.post(JOBS, job('frozen', { suspend: true }))).body;
  const changed = structuredClone(created);
  changed.spec.completions = 3;
  changed.spec.template.spec.containers[0].image = 'busybox:2';
  const res = await api.put(`${JOBS}/frozen`, changed);
  expect(res.status).toBe(422);
  expect(causes(res.body).map((c) => c.replace(/Invalid value: .*: field/, 'field'))).toEqual([
    'FieldValueInvalid spec.completions: field is immutable',
    'FieldValueInvalid spec.template: field is immutable',
  ]);
  const scheduled = structuredClone(created);
  scheduled.spec.template.spec.nodeSelector = { zone: 'a' };
  const ok = await api.put(`${JOBS}/frozen`, scheduled);
  expect(ok.status).toBe(200);
  expect(ok.body.metadata.generation).toBe(2);
});

test('status is written through the status subresource only', async () => {
  const created = (await api.post(JOBS, job('counted'))).body;
  const status = { startTime: '2024-05-06T07:08:00Z', active: 1, ready: 1, terminating: 0, uncountedTerminatedPods: {} };
  const res = await api.put(`${JOBS}/counted/status`, { ...created, status });
  expect(res.status).toBe(200);
  expect(res.body.status).toEqual(status);
  expect(res.body.metadata.generation).toBe(1);
  const ignored = await api.put(`${JOBS}/counted`, { ...res.body, status: { active: 5 } });
  expect(ignored.body.status).toEqual(status);
  const table = await api.get(`${JOBS}/counted`, { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' });
  expect(table.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual([
    'Name',
    'Status',
    'Completions',
    'Duration',
    'Age',
    'Containers',
    'Images',
    'Selector',
  ]);
  expect(table.body.rows[0].cells.slice(0, 3)).toEqual(['counted', 'Running', '0/1']);
});

test('a CronJob gets its defaults; its job template gets the pod defaults only', async () => {
  const res = await api.post(CRONJOBS, cronJob('nightly'));
  expect(res.status).toBe(201);
  expect(res.body.spec).toMatchObject({
    schedule: '0 3 * * *',
    concurrencyPolicy: 'Allow',
    suspend: false,
    successfulJobsHistoryLimit: 3,
    failedJobsHistoryLimit: 1,
  });
  expect(Object.keys(res.body.spec.jobTemplate.spec)).toEqual(['template']);
  expect(res.body.spec.jobTemplate.spec.template.spec).toMatchObject({
    restartPolicy: 'OnFailure',
    dnsPolicy: 'ClusterFirst',
    schedulerName: 'default-scheduler',
  });
  expect(res.body.status).toEqual({});
  expect(await etcd.keys(`${server.prefix}/cronjobs/`)).toEqual([`${server.prefix}/cronjobs/default/nightly`]);
  const table = await api.get(`${CRONJOBS}/nightly`, { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' });
  expect(table.body.columnDefinitions.map((c: { name: string }) => c.name)).toEqual([
    'Name',
    'Schedule',
    'Timezone',
    'Suspend',
    'Active',
    'Last Schedule',
    'Age',
    'Containers',
    'Images',
    'Selector',
  ]);
  expect(table.body.rows[0].cells.slice(0, 6)).toEqual(['nightly', '0 3 * * *', '<none>', 'False', 0, '<none>']);
});

test('a CronJob schedule, time zone and job template are validated with kube-apiserver messages', async () => {
  const res = await api.post(
    CRONJOBS,
    cronJob('broken', {
      schedule: '0 3 * *',
      timeZone: 'Mars/Olympus',
      concurrencyPolicy: 'Sometimes',
      jobTemplate: { spec: { selector: { matchLabels: { a: 'b' } }, template: podTemplate() } },
    }),
  );
  expect(res.status).toBe(422);
  expect(causes(res.body)).toEqual([
    'FieldValueInvalid spec.schedule: Invalid value: "0 3 * *": expected exactly 5 fields, found 4: [0 3 * *]',
    'FieldValueInvalid spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus',
    'FieldValueNotSupported spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
    'FieldValueRequired spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
    'FieldValueInvalid spec.jobTemplate.spec.selector: Invalid value: {"matchLabels":{"a":"b"}}: `selector` will be auto-generated',
  ]);
  const tz = await api.post(CRONJOBS, cronJob('tz', { schedule: 'TZ=UTC 0 3 * * *' }));
  expect(causes(tz.body)).toEqual([
    'FieldValueInvalid spec.schedule: Invalid value: "TZ=UTC 0 3 * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
  ]);
  const long = await api.post(CRONJOBS, cronJob('x'.repeat(53)));
  expect(causes(long.body)).toEqual([`FieldValueInvalid metadata.name: Invalid value: "${'x'.repeat(53)}": must be no more than 52 characters`]);
  const zoned = await api.post(CRONJOBS, cronJob('zoned', { timeZone: 'Europe/Berlin', schedule: '@daily' }));
  expect(zoned.status).toBe(201);
});

test('Job and CronJob in protobuf, both ways', async () => {
  for (const [path, body] of [
    [JOBS, job('proto-job')],
    [CRONJOBS, cronJob('proto-cron')],
  ] as const) {
    const created = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': PROTOBUF, Accept: PROTOBUF },
      body: encodeProtobuf(body),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toBe(PROTOBUF);
    const decoded = decodeProtobuf(Buffer.from(await created.arrayBuffer()));
    const json = (await api.get(`${path}/${body.metadata.name}`)).body;
    expect(decoded).toEqual(json);
  }
});

test('deleting a namespace removes its jobs and cronjobs', async () => {
  await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'batch-gone' } });
  expect((await api.post(`${BATCH}/namespaces/batch-gone/jobs`, job('j'))).status).toBe(201);
  expect((await api.post(`${BATCH}/namespaces/batch-gone/cronjobs`, cronJob('c'))).status).toBe(201);
  await api.delete('/api/v1/namespaces/batch-gone');
  for (let i = 0; i < 100 && (await api.get('/api/v1/namespaces/batch-gone')).status !== 404; i++) await new Promise((r) => setTimeout(r, 100));
  expect((await api.get('/api/v1/namespaces/batch-gone')).status).toBe(404);
  expect(await etcd.keys(`${server.prefix}/jobs/batch-gone/`)).toEqual([]);
  expect(await etcd.keys(`${server.prefix}/cronjobs/batch-gone/`)).toEqual([]);
});
