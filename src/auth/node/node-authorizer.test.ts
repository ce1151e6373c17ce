import type { PersistentVolume, Pod } from '../../generated/types/core/v1';
import { resourceAttributes } from '../authorizer/attributes';
import { NodeGraph } from './graph';
import { NodeAuthorizer } from './node-authorizer';

const n1 = { name: 'system:node:n1', uid: '', groups: ['system:nodes', 'system:authenticated'], extra: {} };
const get = (resource: string, namespace: string, name: string, apiGroup = '') => resourceAttributes(n1, 'get', { resource, namespace, name, apiGroup });

function podOn(node: string, spec: Pod['spec'], name = 'p', status: Pod['status'] = {}, annotations: Record<string, string> = {}): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', annotations }, spec: { nodeName: node, ...spec }, status };
}

test('secrets reach a node through its pods and through the volumes of their claims; other nodes and mirror pods lead nowhere', () => {
  const graph = new NodeGraph();
  const authorizer = new NodeAuthorizer(graph, []);
  graph.addPod(
    podOn(
      'n1',
      {
        serviceAccountName: 'sa',
        volumes: [
          { name: 'data', persistentVolumeClaim: { claimName: 'claim' } },
          { name: 'scratch', ephemeral: {} },
        ],
        containers: [{ name: 'c', envFrom: [{ configMapRef: { name: 'cm' } }] }],
        resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 't' }],
      },
      'p',
      { resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'p-gpu-x' }] },
    ),
  );
  const pv: PersistentVolume = {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: 'pv1' },
    spec: { claimRef: { namespace: 'ns', name: 'claim' }, csi: { driver: 'd', volumeHandle: 'h', nodePublishSecretRef: { name: 'csi-secret' } } },
  };
  graph.addPersistentVolume(pv);
  graph.addPod(podOn('n2', { containers: [{ name: 'c', env: [{ name: 'x', valueFrom: { secretKeyRef: { name: 'theirs', key: 'k' } } }] }] }, 'q'));
  graph.addPod(podOn('n1', { volumes: [{ name: 's', secret: { secretName: 'mirrored' } }] }, 'm', {}, { 'kubernetes.io/config.mirror': 'x' }));

  const allowed = [
    get('configmaps', 'ns', 'cm'),
    get('persistentvolumeclaims', 'ns', 'claim'),
    get('persistentvolumeclaims', 'ns', 'p-scratch'),
    get('persistentvolumes', '', 'pv1'),
    get('secrets', 'ns', 'csi-secret'),
    get('resourceclaims', 'ns', 'p-gpu-x', 'resource.k8s.io'),
    resourceAttributes(n1, 'create', { resource: 'serviceaccounts', subresource: 'token', namespace: 'ns', name: 'sa' }),
  ];
  for (const attrs of allowed) expect([attrs.resource, authorizer.authorize(attrs).decision]).toEqual([attrs.resource, 'Allow']);
  for (const attrs of [get('secrets', 'ns', 'theirs'), get('secrets', 'ns', 'mirrored')]) {
    expect(authorizer.authorize(attrs)).toEqual({ decision: 'NoOpinion', reason: "no relationship found between node 'n1' and this object" });
  }

  graph.deletePersistentVolume('pv1');
  expect(authorizer.authorize(get('secrets', 'ns', 'csi-secret')).decision).toBe('NoOpinion');
  graph.deletePod('ns', 'p');
  expect(authorizer.authorize(get('configmaps', 'ns', 'cm')).decision).toBe('NoOpinion');
});

test('non-nodes get no opinion; a node outside the subdivided kinds gets the static rules', () => {
  const authorizer = new NodeAuthorizer(new NodeGraph(), [{ verbs: ['get'], apiGroups: [''], resources: ['services'] }]);
  const someone = { ...n1, groups: ['system:authenticated'] };
  expect(authorizer.authorize(resourceAttributes(someone, 'get', { resource: 'services', name: 's' })).decision).toBe('NoOpinion');
  expect(authorizer.authorize(resourceAttributes(n1, 'get', { resource: 'services', name: 's' })).decision).toBe('Allow');
  expect(authorizer.authorize(resourceAttributes({ ...n1, name: 'system:node:' }, 'get', { resource: 'services' }))).toEqual({
    decision: 'NoOpinion',
    reason: 'unknown node for user "system:node:"',
  });
  expect(authorizer.rulesFor(n1)).toMatchObject({ incomplete: true, error: 'node authorizer does not support user rule resolution' });
});
