import { kubectl, startServerProcess, type ServerProcess } from '../harness/process';

/**
 * MutatingAdmissionPolicies (admissionregistration.k8s.io/v1, GA in 1.36) through real kubectl, on
 * a server with kube-apiserver 1.36's defaults: a policy and binding applied from YAML, the table
 * kubectl prints, and a config map kubectl creates coming back mutated.
 */

let kapi: ServerProcess;
const k = (...args: string[]) => kubectl(kapi.url, args);
const k$ = (input: string, ...args: string[]) => kubectl(kapi.url, args, input);

beforeAll(async () => {
  kapi = await startServerProcess();
});

afterAll(async () => {
  await kapi?.stop();
});

test('kubectl apply of a policy and binding, then kubectl create sees the object mutated', async () => {
  const manifest = `
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicy
metadata:
  name: add-owner
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["configmaps"]
  reinvocationPolicy: Never
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{metadata: Object.metadata{labels: {"owner": request.userInfo.username.split(":")[0]}}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: add-owner-binding
spec:
  policyName: add-owner
`;
  const applied = await k$(manifest, 'apply', '-f', '-');
  expect(applied.stderr).toBe('');
  expect(applied.stdout).toBe(
    'mutatingadmissionpolicy.admissionregistration.k8s.io/add-owner created\nmutatingadmissionpolicybinding.admissionregistration.k8s.io/add-owner-binding created\n',
  );
  const listed = await k('get', 'mutatingadmissionpolicies');
  expect(listed.stdout).toMatch(/^NAME\s+MUTATIONS\s+PARAMKIND\s+AGE\nadd-owner\s+1\s+<unset>\s+/);
  // Policies are read from the watch cache: the first create right after the binding may miss it.
  const deadline = Date.now() + 20_000;
  let labels: Record<string, string> = {};
  for (let i = 0; !labels.owner && Date.now() < deadline; i++) {
    expect((await k('create', 'configmap', `mutated-${i}`, '--from-literal=a=1')).code).toBe(0);
    labels = JSON.parse((await k('get', 'configmap', `mutated-${i}`, '-o', 'json')).stdout).metadata.labels ?? {};
  }
  expect(labels.owner).toBeTruthy();
});
