import { evaluatePolicy, parseAuditPolicy, type AuditAttributes } from './policy';

const policy = parseAuditPolicy(
  Buffer.from(`
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  users: [system:kube-proxy]
- level: None
  nonResourceURLs: [/healthz*, /version]
- level: RequestResponse
  resources: [{group: "", resources: [pods/log, "*/status"]}]
- level: Request
  verbs: [create]
  namespaces: [prod]
  omitStages: [ResponseStarted]
- level: Metadata
  userGroups: [auditors]
`),
  'policy.yaml',
);

const attrs = (over: Partial<AuditAttributes>): AuditAttributes => ({
  user: { name: 'u', uid: '', groups: [], extra: {} },
  verb: 'get',
  resourceRequest: true,
  path: '',
  apiGroup: '',
  namespace: 'default',
  resource: 'pods',
  subresource: '',
  name: 'p',
  ...over,
});

test.each([
  [{ user: { name: 'system:kube-proxy', uid: '', groups: [], extra: {} } }, 'None'],
  [{ resourceRequest: false, path: '/healthz/etcd' }, 'None'],
  [{ subresource: 'log' }, 'RequestResponse'],
  [{ resource: 'deployments', apiGroup: '', subresource: 'status' }, 'RequestResponse'],
  [{ verb: 'create', namespace: 'prod' }, 'Request'],
  [{ verb: 'create', namespace: 'dev' }, 'None'],
  [{ user: { name: 'a', uid: '', groups: ['auditors'], extra: {} } }, 'Metadata'],
  [{}, 'None'],
])('%j: %s', (over, level) => {
  expect(evaluatePolicy(policy, attrs(over)).level).toBe(level);
});

test("omitted stages: the policy's and the rule's", () => {
  expect(evaluatePolicy(policy, attrs({ verb: 'create', namespace: 'prod' })).omitStages).toEqual(['RequestReceived', 'ResponseStarted']);
});

test('a policy is checked', () => {
  expect(() => parseAuditPolicy(Buffer.from('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n'), 'p')).toThrow(
    'loaded illegal policy with 0 rules from file p',
  );
  expect(() => parseAuditPolicy(Buffer.from('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: Everything}]\n'), 'p')).toThrow(
    'p: rules[0].level: Unsupported value: "Everything"',
  );
});
