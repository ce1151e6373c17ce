import { statusOf } from '../../test/harness/status-of';
import { parseRequestTarget, unescapePath } from './request-target';

test('paths are percent-decoded whole, as Go decodes URL.Path', () => {
  expect(unescapePath('/apis/rbac.authorization.k8s.io/v1/clusterroles/system%3Aprobe')).toBe('/apis/rbac.authorization.k8s.io/v1/clusterroles/system:probe');
  expect(unescapePath('/api/v1/namespaces/kube%2Dsystem')).toBe('/api/v1/namespaces/kube-system');
  expect(unescapePath('/a%2Fb')).toBe('/a/b');
  expect(unescapePath('/a+b%20c')).toBe('/a+b c');
  expect(unescapePath('/caf%C3%A9')).toBe('/café');
});

test('a bad escape is a 400', () => {
  expect(statusOf(() => unescapePath('/a%zz')).message).toBe('invalid URL escape "%zz"');
  expect(statusOf(() => unescapePath('/a%4')).message).toBe('invalid URL escape "%4"');
});

test('origin, absolute and asterisk forms', () => {
  expect(parseRequestTarget('/api/v1/pods?limit=1')).toEqual({ path: '/api/v1/pods', rawPath: '/api/v1/pods', rawQuery: 'limit=1' });
  expect(parseRequestTarget('//')).toEqual({ path: '//', rawPath: '//', rawQuery: '' });
  expect(parseRequestTarget('http://x:99999/api?watch=1')).toEqual({ path: '/api', rawPath: '/api', rawQuery: 'watch=1' });
  expect(parseRequestTarget('https://host')).toEqual({ path: '/', rawPath: '/', rawQuery: '' });
  expect(parseRequestTarget('http://host?a=b').rawQuery).toBe('a=b');
  expect(parseRequestTarget('*').path).toBe('*');
  expect(statusOf(() => parseRequestTarget('host:80')).code).toBe(400);
});
