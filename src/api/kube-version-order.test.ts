import { compareKubeVersions } from './kube-version-order';

test('versions sort as kube-aware version strings: GA, then beta, then alpha, higher first, others last by name', () => {
  const versions = ['v1alpha1', 'v2beta1', 'foo', 'v1', 'v11alpha2', 'v2', 'v1beta2', 'bar', 'v12alpha1'];
  expect([...versions].sort(compareKubeVersions)).toEqual(['v2', 'v1', 'v2beta1', 'v1beta2', 'v12alpha1', 'v11alpha2', 'v1alpha1', 'bar', 'foo']);
});
