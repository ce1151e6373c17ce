import path from 'node:path';
import { kubectl, serverProcessForFile } from '../harness/process';

/** deploy/kubernetes, built by kubectl's kustomize and validated by a server: kapi itself (dry run). */
const kapi = serverProcessForFile();
const DIR = path.resolve(__dirname, '../../deploy/kubernetes');

test('kubectl apply -k deploy/kubernetes --dry-run=server accepts every object', async () => {
  // A dry-run Namespace is not stored, so the namespaced objects need it to exist already.
  expect((await kubectl(kapi.url, ['create', 'namespace', 'kapi-system', '--save-config'])).code).toBe(0);
  const res = await kubectl(kapi.url, ['apply', '-k', DIR, '--dry-run=server']);
  expect(res.stderr).toBe('');
  expect(res.stdout.trim().split('\n').sort()).toEqual([
    'deployment.apps/kapi created (server dry run)',
    'namespace/kapi-system configured (server dry run)',
    'poddisruptionbudget.policy/kapi created (server dry run)',
    'service/kapi created (server dry run)',
    'serviceaccount/kapi created (server dry run)',
  ]);
  expect((await kubectl(kapi.url, ['get', 'deployments', '-n', 'kapi-system', '-o', 'name'])).stdout).toBe('');
});
