import { kubectl, serverProcessForFile } from '../harness/process';

/** PodSecurity as kubectl users meet it: the restricted refusal and the workload warning, printed as kubectl prints them. */

const kapi = serverProcessForFile();
const k = (args: string[], input?: string) => kubectl(kapi.url, args, input);

const restrictedBare = (c: string): string =>
  `allowPrivilegeEscalation != false (container "${c}" must set securityContext.allowPrivilegeEscalation=false), ` +
  `unrestricted capabilities (container "${c}" must set securityContext.capabilities.drop=["ALL"]), ` +
  `runAsNonRoot != true (pod or container "${c}" must set securityContext.runAsNonRoot=true), ` +
  `seccompProfile (pod or container "${c}" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`;

test('kubectl label enforces restricted; a bare pod is refused with kube message, a Deployment warned', async () => {
  expect((await k(['create', 'namespace', 'locked'])).code).toBe(0);
  const labelled = await k(['label', 'namespace', 'locked', 'pod-security.kubernetes.io/enforce=restricted']);
  expect(labelled.stdout.trim()).toBe('namespace/locked labeled');

  const pod = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: bare\n  namespace: locked\nspec:\n  containers:\n  - name: app\n    image: nginx\n';
  const refused = await k(['apply', '-f', '-'], pod);
  expect(refused.code).not.toBe(0);
  expect(refused.stderr.trim()).toBe(
    `Error from server (Forbidden): error when creating "STDIN": pods "bare" is forbidden: violates PodSecurity "restricted:latest": ${restrictedBare('app')}`,
  );

  // kubectl names the container after its image.
  const deployed = await k(['create', 'deployment', 'app', '--image=nginx', '-n', 'locked']);
  expect(deployed.code).toBe(0);
  expect(deployed.stdout.trim()).toBe('deployment.apps/app created');
  expect(deployed.stderr.trim()).toBe(`Warning: would violate PodSecurity "restricted:latest": ${restrictedBare('nginx')}`);
});
