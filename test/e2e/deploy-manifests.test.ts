import path from 'node:path';
import yaml from 'js-yaml';
import { parseFlags } from '../../src/server/config';
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

test('what kustomize builds runs kapi with the TLS port only: no plain-HTTP port among the args kapi parses, 6443 the only container port', async () => {
  const res = await kubectl(kapi.url, ['kustomize', DIR]);
  expect(res.stderr).toBe('');
  const objects = yaml.loadAll(res.stdout) as { kind: string; spec: any }[];
  const deployment = objects.find((o) => o.kind === 'Deployment')!;
  for (const container of deployment.spec.template.spec.containers) {
    const config = parseFlags(container.args);
    expect(config === 'help' ? 'help' : config.insecurePort).toBeNull();
    expect(container.ports.map((p: { containerPort: number }) => p.containerPort)).toEqual([6443]);
  }
  const service = objects.find((o) => o.kind === 'Service')!;
  expect(service.spec.ports.map((p: { targetPort: string }) => p.targetPort)).toEqual(['https']);
});
