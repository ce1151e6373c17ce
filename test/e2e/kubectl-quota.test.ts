import { eventually } from '../harness/crds';
import { kubectl, serverProcessForFile } from '../harness/process';

/** Quotas and limit ranges as a cluster admin uses them with kubectl: create, describe, run over quota, defaults in pods. */

const kapi = serverProcessForFile();
const k = (...args: string[]) => kubectl(kapi.url, args);

test('kubectl create quota, describe quota shows used/hard, and kubectl run over quota gets the 403', async () => {
  expect((await k('create', 'namespace', 'team-a')).code).toBe(0);
  const created = await k('create', 'quota', 'q', '-n', 'team-a', '--hard=pods=2,requests.cpu=1,count/secrets=10');
  expect(created.stderr).toBe('');
  expect(created.stdout.trim()).toBe('resourcequota/q created');
  // The controller counts the quota; describe then shows every resource.
  const described = await eventually('the quota counted', async () => {
    const res = await k('describe', 'quota', 'q', '-n', 'team-a');
    return /requests\.cpu\s+0\s+1/.test(res.stdout) ? res.stdout : undefined;
  });
  expect(described).toMatch(/^Name:\s+q$/m);
  expect(described).toMatch(/^Namespace:\s+team-a$/m);
  expect(described).toMatch(/^Resource\s+Used\s+Hard$/m);
  expect(described).toMatch(/^pods\s+0\s+2$/m);

  for (const name of ['one', 'two']) {
    const run = await k(
      'run',
      name,
      '-n',
      'team-a',
      '--image=nginx',
      '--overrides={"spec":{"containers":[{"name":"c","image":"nginx","resources":{"requests":{"cpu":"250m"}}}]}}',
    );
    expect(run.stderr).toBe('');
  }
  const over = await k(
    'run',
    'three',
    '-n',
    'team-a',
    '--image=nginx',
    '--overrides={"spec":{"containers":[{"name":"c","image":"nginx","resources":{"requests":{"cpu":"250m"}}}]}}',
  );
  expect(over.code).not.toBe(0);
  expect(over.stderr.trim()).toBe(
    'Error from server (Forbidden): pods "three" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2',
  );
  const after = await k('describe', 'quota', 'q', '-n', 'team-a');
  expect(after.stdout).toMatch(/^pods\s+2\s+2$/m);
  expect(after.stdout).toMatch(/^requests\.cpu\s+500m\s+1$/m);

  const missing = await k('run', 'bare', '-n', 'team-a', '--image=nginx');
  expect(missing.stderr.trim()).toBe('Error from server (Forbidden): pods "bare" is forbidden: failed quota: q: must specify requests.cpu for: bare');
});

test('a LimitRange default appears in the pod kubectl runs, with the limit-ranger annotation', async () => {
  expect((await k('create', 'namespace', 'team-b')).code).toBe(0);
  const range = `apiVersion: v1
kind: LimitRange
metadata:
  name: defaults
  namespace: team-b
spec:
  limits:
  - type: Container
    default:
      cpu: 500m
      memory: 256Mi
    defaultRequest:
      cpu: 100m
      memory: 128Mi
    max:
      memory: 1Gi
`;
  expect((await kubectl(kapi.url, ['apply', '-f', '-'], range)).stdout.trim()).toBe('limitrange/defaults created');
  const run = await k('run', 'web', '-n', 'team-b', '--image=nginx');
  expect(run.stderr).toBe('');
  const resources = await k('get', 'pod', 'web', '-n', 'team-b', '-o', 'jsonpath={.spec.containers[0].resources}');
  expect(JSON.parse(resources.stdout)).toEqual({ limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } });
  const annotation = await k('get', 'pod', 'web', '-n', 'team-b', '-o', 'jsonpath={.metadata.annotations.kubernetes\\.io/limit-ranger}');
  expect(annotation.stdout).toBe('LimitRanger plugin set: cpu, memory request for container web; cpu, memory limit for container web');
  const big = await k(
    'run',
    'big',
    '-n',
    'team-b',
    '--image=nginx',
    '--overrides={"spec":{"containers":[{"name":"big","image":"nginx","resources":{"limits":{"memory":"2Gi"}}}]}}',
  );
  expect(big.stderr.trim()).toBe('Error from server (Forbidden): pods "big" is forbidden: maximum memory usage per Container is 1Gi, but limit is 2Gi');
  const described = await k('describe', 'limitrange', 'defaults', '-n', 'team-b');
  expect(described.stdout).toMatch(/^Container\s+cpu\s+-\s+-\s+100m\s+500m\s+-$/m);
});
