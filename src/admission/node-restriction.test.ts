import type { KubeObject } from '../api/types';
import type { AdmissionAttributes } from './admission';
import { NodeRestriction } from './node-restriction';

const n1 = { name: 'system:node:n1', uid: '', groups: ['system:nodes'], extra: {} };
const pods: Record<string, KubeObject> = {
  mine: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'mine', namespace: 'ns', uid: 'u1' }, spec: { nodeName: 'n1' } },
  theirs: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'theirs', namespace: 'ns', uid: 'u2' }, spec: { nodeName: 'n2' } },
};
const plugin = new NodeRestriction({
  pod: async (_ns, name) => pods[name] ?? null,
  node: async (name) => (name === 'n1' ? { apiVersion: 'v1', kind: 'Node', metadata: { name, uid: 'node-uid' } } : null),
});
/** The plugin's admit as the chain sees it: a refusal is a rejected promise whether it threw at once or later. */
const admit = async (a: AdmissionAttributes): Promise<void> => plugin.admit(a);

function attrs(resource: string, operation: AdmissionAttributes['operation'], more: Partial<AdmissionAttributes>): AdmissionAttributes {
  return {
    operation,
    def: { group: '', resource } as AdmissionAttributes['def'],
    namespace: 'ns',
    name: '',
    subresource: '',
    kind: { group: '', version: 'v1', kind: '' },
    options: {},
    dryRun: false,
    user: n1,
    request: {} as AdmissionAttributes['request'],
    ...more,
  };
}

const mirror = (owner: Record<string, unknown>, spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'static', annotations: { 'kubernetes.io/config.mirror': 'h' }, ownerReferences: [owner as never] },
  spec: { nodeName: 'n1', ...spec },
});
const ownerN1 = { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'node-uid', controller: true };

test('a node creates only mirror pods owned by itself that reference nothing', async () => {
  await expect(admit(attrs('pods', 'CREATE', { object: mirror(ownerN1) }))).resolves.toBeUndefined();
  const refusal = (object: KubeObject) => admit(attrs('pods', 'CREATE', { object }));
  await expect(refusal(mirror({ ...ownerN1, uid: 'other' }))).rejects.toThrow('pods "static" is forbidden: node n1 UID mismatch: expected other got node-uid');
  await expect(refusal(mirror({ ...ownerN1, controller: false }))).rejects.toThrow(
    'node "n1" can only create pods with a controller owner reference set to itself',
  );
  await expect(refusal(mirror(ownerN1, { volumes: [{ name: 'v', secret: { secretName: 's' } }] }))).rejects.toThrow(
    'node "n1" can not create pods that reference secrets',
  );
  const plain = { ...mirror(ownerN1), metadata: { name: 'plain' } };
  await expect(refusal(plain)).rejects.toThrow('pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods');
});

test('evictions, deletions and tokens only for pods bound to the node', async () => {
  const eviction = { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'theirs' } };
  await expect(admit(attrs('pods', 'CREATE', { subresource: 'eviction', name: 'theirs', object: eviction }))).rejects.toThrow(
    'pods "theirs" is forbidden: node n1 can only evict pods with spec.nodeName set to itself',
  );
  await expect(admit(attrs('pods', 'DELETE', { name: 'gone', oldObject: pods.mine }))).rejects.toThrow('pods "gone" not found');
  await expect(admit(attrs('pods', 'DELETE', { name: 'mine', oldObject: pods.mine }))).resolves.toBeUndefined();
  const token = (ref: Record<string, string>) =>
    attrs('serviceaccounts', 'CREATE', {
      subresource: 'token',
      name: 'sa',
      object: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: {}, spec: { boundObjectRef: ref } },
    });
  await expect(admit(token({ apiVersion: 'v1', kind: 'Pod', name: 'mine', uid: 'u1' }))).resolves.toBeUndefined();
  await expect(admit(token({ apiVersion: 'v1', kind: 'Pod', name: 'theirs', uid: 'u2' }))).rejects.toThrow(
    'node requested token bound to a pod scheduled on a different node',
  );
  await expect(admit(token({ apiVersion: 'v1', kind: 'Secret', name: 's' }))).rejects.toThrow('node requested token not bound to a pod');
});

test('labels: kubelet labels and namespaces pass; node-restriction and other kubernetes.io labels do not', async () => {
  const node = (labels: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels } });
  const create = (labels: Record<string, string>) => admit(attrs('nodes', 'CREATE', { namespace: '', object: node(labels) }));
  await expect(create({ 'kubernetes.io/hostname': 'h', 'a.node.kubernetes.io/x': 'y', 'kubelet.kubernetes.io/z': '1', team: 'a' })).resolves.toBeUndefined();
  await expect(create({ 'node-role.kubernetes.io/control-plane': '', 'x.node-restriction.kubernetes.io/a': 'b', 'k8s.io/q': '1' })).rejects.toThrow(
    'nodes "n1" is forbidden: node "n1" is not allowed to set the following labels: k8s.io/q, node-role.kubernetes.io/control-plane, x.node-restriction.kubernetes.io/a',
  );
});
