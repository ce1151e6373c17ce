import { compareKubeVersions, toDiscoveryResources } from './discovery-cache';

test('versions sort as kube-aware version strings: GA, then beta, then alpha, higher first, others last by name', () => {
  const versions = ['v1alpha1', 'v2beta1', 'foo', 'v1', 'v11alpha2', 'v2', 'v1beta2', 'bar', 'v12alpha1'];
  expect([...versions].sort(compareKubeVersions)).toEqual(['v2', 'v1', 'v2beta1', 'v1beta2', 'v12alpha1', 'v11alpha2', 'v1alpha1', 'bar', 'foo']);
});

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
