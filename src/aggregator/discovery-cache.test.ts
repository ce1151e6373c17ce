import { toDiscoveryResources } from './discovery-cache';

test('an APIResourceList becomes apidiscovery v2 resources, subresources under their resource with their own kinds', () => {
  const list = {
    kind: 'APIResourceList',
    groupVersion: 'wardle.example.com/v1alpha1',
    resources: [
      { name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['get', 'list'], shortNames: ['fl'], categories: ['all'] },
      { name: 'flunders/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'update'] },
      { name: 'fischers', singularName: 'fischer', namespaced: false, kind: 'Fischer', verbs: ['get'] },
      { name: 'orphans/status', namespaced: false, kind: 'Orphan', verbs: ['get'] },
    ],
  };
  expect(toDiscoveryResources(list, 'wardle.example.com', 'v1alpha1')).toEqual([
    {
      resource: 'flunders',
      responseKind: { group: 'wardle.example.com', version: 'v1alpha1', kind: 'Flunder' },
      scope: 'Namespaced',
      singularResource: 'flunder',
      verbs: ['get', 'list'],
      shortNames: ['fl'],
      categories: ['all'],
      subresources: [{ subresource: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: ['get', 'update'] }],
    },
    {
      resource: 'fischers',
      responseKind: { group: 'wardle.example.com', version: 'v1alpha1', kind: 'Fischer' },
      scope: 'Cluster',
      singularResource: 'fischer',
      verbs: ['get'],
    },
  ]);
});
