import path from 'node:path';
import { kubectl, serverProcessForFile } from '../harness/process';

/**
 * ValidatingAdmissionPolicies through real kubectl: a policy and binding applied from YAML and the
 * denial kubectl prints; Gateway API's standard install bundle (test/fixtures/bundles/gateway-api.yaml,
 * v1.6.1, with its safe-upgrades policy) applied, and what that policy refuses.
 */

const kapi = serverProcessForFile();
const k = (...args: string[]) => kubectl(kapi.url, args);
const k$ = (input: string, ...args: string[]) => kubectl(kapi.url, args, input);
const BUNDLE = path.join(__dirname, '../fixtures/bundles/gateway-api.yaml');

/** Policies are read from the watch cache: a request right after the binding is created may not see it yet. */
async function eventuallyRefused(run: () => Promise<{ code: number; stderr: string }>): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await run();
    if (res.code !== 0 || Date.now() > deadline) return res.stderr;
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('kubectl apply of a policy and binding, then the denial kubectl prints', async () => {
  const manifest = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: no-latest
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.template.spec.containers.all(c, !c.image.endsWith(':latest'))"
    message: "images must not use the latest tag"
  # optional syntax and a two-variable comprehension (kube's base environment: OptionalTypes, TwoVarComprehensions)
  - expression: "object.metadata.?labels.orValue({}).all(k, v, !k.startsWith('tier') || v in ['web', 'db'])"
    messageExpression: "'bad tier: ' + object.metadata.?labels[?'tier'].orValue('')"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: no-latest-binding
spec:
  policyName: no-latest
  validationActions: [Deny]
`;
  const applied = await k$(manifest, 'apply', '-f', '-');
  expect(applied.stderr).toBe('');
  expect(applied.stdout).toBe(
    'validatingadmissionpolicy.admissionregistration.k8s.io/no-latest created\nvalidatingadmissionpolicybinding.admissionregistration.k8s.io/no-latest-binding created\n',
  );
  const listed = await k('get', 'validatingadmissionpolicies');
  expect(listed.stdout).toMatch(/^NAME\s+VALIDATIONS\s+PARAMKIND\s+AGE\nno-latest\s+2\s+<unset>\s+/);
  const stderr = await eventuallyRefused(() => k('create', 'deployment', 'web', '--image=nginx:latest'));
  expect(stderr).toContain("ValidatingAdmissionPolicy 'no-latest' with binding 'no-latest-binding' denied request: images must not use the latest tag");
  const badTier = await k$(
    'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: tiered, labels: {tier: cache}}\nspec:\n  selector: {matchLabels: {app: t}}\n' +
      '  template:\n    metadata: {labels: {app: t}}\n    spec: {containers: [{name: c, image: nginx:1.27}]}\n',
    'apply',
    '-f',
    '-',
  );
  expect(badTier.stderr).toContain("ValidatingAdmissionPolicy 'no-latest' with binding 'no-latest-binding' denied request: bad tier: cache");
  expect((await k('create', 'deployment', 'web', '--image=nginx:1.27')).code).toBe(0);
});

test("runtime cost budgets: a policy's validations past RuntimeCELCostBudget, a webhook's matchConditions past their own, follow the failurePolicy", async () => {
  // each costs cel-go's ceil((100,000 + 1) * 0.1) * ceil(256 * 0.25) = 640,064 (under the per-call 1,000,000):
  // 16 of them spend 10,241,024, past the policy's 10,000,000; 4 past matchConditions' 2,500,000
  const costly = `"object.data.k.matches('^[a-z]*$|${'q'.repeat(247)}')"`;
  const policy = (failurePolicy: string) => `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: costly}
spec:
  failurePolicy: ${failurePolicy}
  matchConstraints:
    resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
    objectSelector: {matchLabels: {budget: policy}}
  validations:
${Array.from({ length: 16 }, () => `  - expression: ${costly}`).join('\n')}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: costly}
spec: {policyName: costly, validationActions: [Deny]}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: costly}
webhooks:
- name: costly.kapi.test
  clientConfig: {url: "https://127.0.0.1:9/never-called"}
  rules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]
  objectSelector: {matchLabels: {budget: webhook}}
  matchConditions:
${Array.from({ length: 4 }, (_, i) => `  - {name: c${i}, expression: ${costly}}`).join('\n')}
  failurePolicy: Fail
  sideEffects: None
  admissionReviewVersions: [v1]
`;
  expect((await k$(policy('Fail'), 'apply', '-f', '-')).stderr).toBe('');
  const configMap = (name: string, budget: string) =>
    k$(`apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, labels: {budget: ${budget}}}\ndata: {k: ${'a'.repeat(100_000)}}\n`, 'create', '-f', '-');
  const outOfBudget = 'validation failed due to running out of cost budget, no further validation rules will be run';
  expect(await eventuallyRefused(() => configMap('budget-p', 'policy'))).toContain(
    // a denial without a reason is 422 Invalid with the message as its cause, which kubectl prints so
    `The configmaps "budget-p" is invalid: : ValidatingAdmissionPolicy 'costly' with binding 'costly' denied request: ${outOfBudget}`,
  );
  expect(await eventuallyRefused(() => configMap('budget-w', 'webhook'))).toContain(`configmaps "budget-w" is forbidden: ${outOfBudget}`);
  // under failurePolicy Ignore the exhausted budget admits
  expect((await k$(policy('Ignore'), 'apply', '-f', '-')).stderr).toBe('');
  const deadline = Date.now() + 20_000;
  let admitted = await configMap('budget-p', 'policy');
  while (admitted.code !== 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    admitted = await configMap('budget-p', 'policy');
  }
  expect(admitted.stdout.trim()).toBe('configmap/budget-p created');
  expect((await k('delete', 'validatingwebhookconfiguration', 'costly')).code).toBe(0);
  expect((await k('delete', 'validatingadmissionpolicybinding', 'costly')).code).toBe(0);
});

describe("Gateway API's standard install bundle", () => {
  test('kubectl apply --server-side creates its CRDs, the safe-upgrades policy and its binding', async () => {
    const res = await k('apply', '--server-side', '-f', BUNDLE);
    expect(res.stderr).toBe('');
    expect(res.stdout).toContain('customresourcedefinition.apiextensions.k8s.io/gatewayclasses.gateway.networking.k8s.io serverside-applied');
    expect(res.stdout).toContain('validatingadmissionpolicy.admissionregistration.k8s.io/safe-upgrades.gateway.networking.k8s.io serverside-applied');
    expect(res.stdout).toContain('validatingadmissionpolicybinding.admissionregistration.k8s.io/safe-upgrades.gateway.networking.k8s.io serverside-applied');
    // Re-applying the same bundle is an allowed update (standard channel, a current bundle version).
    const again = await k('apply', '--server-side', '-f', BUNDLE);
    expect(again.stderr).toBe('');
  });

  test('the policy refuses experimental CRDs over standard ones', async () => {
    const stderr = await eventuallyRefused(() =>
      k('annotate', 'crd', 'gatewayclasses.gateway.networking.k8s.io', 'gateway.networking.k8s.io/channel=experimental', '--overwrite'),
    );
    expect(stderr).toContain(
      "ValidatingAdmissionPolicy 'safe-upgrades.gateway.networking.k8s.io' with binding 'safe-upgrades.gateway.networking.k8s.io' denied request: Installing experimental CRDs on top of standard channel CRDs is prohibited by default.",
    );
  });

  test('the policy refuses Gateway API CRDs of a bundle version before v1.5.0, and lets other groups through', async () => {
    const crd = (group: string, version: string) => `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.${group}
  annotations:
    gateway.networking.k8s.io/bundle-version: ${version}
    gateway.networking.k8s.io/channel: standard
spec:
  group: ${group}
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;
    const old = await k$(crd('gateway.networking.k8s.io', 'v1.2.0'), 'apply', '-f', '-');
    expect(old.code).not.toBe(0);
    expect(old.stderr).toContain('denied request: Installing CRDs with version before v1.5.0 is prohibited by default.');
    expect((await k$(crd('gateway.networking.k8s.io', 'v1.6.1'), 'apply', '-f', '-')).code).toBe(0);
    expect((await k$(crd('example.com', 'v1.2.0'), 'apply', '-f', '-')).code).toBe(0);
  });
});
