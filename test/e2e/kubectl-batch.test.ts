import { kubectl, serverProcessForFile } from '../harness/process';

/** kubectl's batch commands: create job|cronjob (protobuf bodies), a job from a cronjob, get, apply, delete. */

const kapi = serverProcessForFile();
const k = (...args: string[]) => kubectl(kapi.url, args);

test('kubectl create job and cronjob, then a job from the cronjob', async () => {
  expect((await k('create', 'job', 'pi', '--image=busybox', '--', 'echo', 'hi')).stdout.trim()).toBe('job.batch/pi created');
  expect((await k('create', 'cronjob', 'nightly', '--image=busybox', '--schedule=0 3 * * *')).stdout.trim()).toBe('cronjob.batch/nightly created');
  expect((await k('create', 'job', '--from=cronjob/nightly', 'manual')).stdout.trim()).toBe('job.batch/manual created');

  const pi = JSON.parse((await k('get', 'job', 'pi', '-o', 'json')).stdout);
  const uid = pi.metadata.uid as string;
  expect(pi.spec.selector).toEqual({ matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
  expect(pi.spec.template.metadata.labels).toEqual({
    'batch.kubernetes.io/controller-uid': uid,
    'batch.kubernetes.io/job-name': 'pi',
    'controller-uid': uid,
    'job-name': 'pi',
  });
  expect(pi.spec.template.spec.containers[0]).toMatchObject({ name: 'pi', image: 'busybox', command: ['echo', 'hi'] });
  expect(pi.spec.template.spec.restartPolicy).toBe('Never');

  const manual = JSON.parse((await k('get', 'job', 'manual', '-o', 'json')).stdout);
  expect(manual.metadata.annotations).toEqual({ 'cronjob.kubernetes.io/instantiate': 'manual' });
  expect(manual.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'CronJob', name: 'nightly', controller: true })]);
  expect(manual.spec.template.spec.restartPolicy).toBe('OnFailure');
});

test('kubectl get jobs,cronjobs prints the kube-apiserver columns, and -o wide the template', async () => {
  const plain = (await k('get', 'jobs,cronjobs')).stdout;
  // The job controller has started them: their Duration runs from status.startTime.
  expect(plain).toMatch(
    /^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE\njob\.batch\/manual\s+Running\s+0\/1\s+\S+\s+\S+\njob\.batch\/pi\s+Running\s+0\/1\s+\S+\s+\S+\n\n/,
  );
  expect(plain).toMatch(
    /\nNAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE\ncronjob\.batch\/nightly\s+0 3 \* \* \*\s+<none>\s+False\s+0\s+<none>\s+\S+\n$/,
  );
  const wide = (await k('get', 'job', 'pi', '-o', 'wide')).stdout;
  expect(wide).toMatch(
    /^NAME\s+STATUS\s+COMPLETIONS\s+DURATION\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\npi\s+Running\s+0\/1\s+\S+\s+\S+\s+pi\s+busybox\s+batch\.kubernetes\.io\/controller-uid=[0-9a-f-]+\n$/,
  );
  const cjWide = (await k('get', 'cj', 'nightly', '-o', 'wide')).stdout;
  expect(cjWide).toMatch(
    /^NAME\s+SCHEDULE\s+TIMEZONE\s+SUSPEND\s+ACTIVE\s+LAST SCHEDULE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\nnightly\s+0 3 \* \* \*\s+<none>\s+False\s+0\s+<none>\s+\S+\s+nightly\s+busybox\s+<none>\n$/,
  );
});

test('kubectl apply of a Job manifest twice: created, then unchanged', async () => {
  const manifest = `apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
spec:
  backoffLimit: 2
  template:
    spec:
      restartPolicy: OnFailure
      containers:
      - name: migrate
        image: busybox:1.36
        command: ["sh", "-c", "echo migrated"]
`;
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], manifest)).stdout.trim()).toBe('job.batch/migrate created');
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], manifest)).stdout.trim()).toBe('job.batch/migrate unchanged');
});

test('a job without restartPolicy is refused with the field named', async () => {
  const res = await kubectl(
    kapi.url,
    ['apply', '-f', '-'],
    'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: norestart\nspec:\n  template:\n    spec:\n      containers:\n      - name: c\n        image: busybox\n',
  );
  expect(res.code).not.toBe(0);
  expect(res.stderr).toContain('spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"');
});

test('kubectl delete job', async () => {
  expect((await k('delete', 'job', 'pi')).stdout.trim()).toBe('job.batch "pi" deleted');
  expect((await k('get', 'job', 'pi')).stderr).toContain('jobs.batch "pi" not found');
});
