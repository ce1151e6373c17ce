import { boolOption, parseRequestInfo } from './request-info';

const info = (method: string, path: string, query = '') => parseRequestInfo(method, path, new URLSearchParams(query));

describe('resource requests', () => {
  test('a core, namespaced, named object', () => {
    expect(info('GET', '/api/v1/namespaces/default/pods/web')).toEqual({
      isResourceRequest: true,
      verb: 'get',
      apiPrefix: 'api',
      group: '',
      version: 'v1',
      namespace: 'default',
      resource: 'pods',
      subresource: '',
      name: 'web',
      parts: ['pods', 'web'],
      underNamespace: true,
      rooted: true,
      method: 'GET',
    });
  });

  test('empty segments are kept, only leading and trailing slashes trimmed (RequestInfoFactory.splitPath)', () => {
    expect(info('GET', '/api/v1/namespaces//pods')).toMatchObject({ verb: 'list', namespace: '', resource: 'pods', name: '', underNamespace: true });
    expect(info('DELETE', '/api/v1/namespaces//configmaps/x')).toMatchObject({ verb: 'delete', namespace: '', resource: 'configmaps', name: 'x' });
    expect(info('GET', '/api/v1//namespaces')).toMatchObject({ verb: 'get', namespace: '', resource: '', name: 'namespaces' });
    expect(info('GET', '/apis/apps/v1/namespaces/default//deployments')).toMatchObject({
      verb: 'get',
      namespace: 'default',
      resource: '',
      name: 'deployments',
    });
    expect(info('GET', '/api/v1/namespaces/default/pods//status')).toMatchObject({ verb: 'list', resource: 'pods', name: '', subresource: 'status' });
    expect(info('GET', '/api/v1/watch/namespaces//pods/p')).toMatchObject({ verb: 'watch', namespace: '', resource: 'pods', name: 'p' });
    expect(info('GET', '/api/v1/namespaces/default/pods//')).toMatchObject({ verb: 'list', namespace: 'default', resource: 'pods', rooted: true });
    expect(info('GET', '//api/v1/namespaces')).toMatchObject({ verb: 'list', resource: 'namespaces', rooted: false });
  });

  test('a group resource with a subresource', () => {
    expect(info('PUT', '/apis/apps/v1/namespaces/ns/deployments/web/status')).toMatchObject({
      verb: 'update',
      apiPrefix: 'apis',
      group: 'apps',
      version: 'v1',
      namespace: 'ns',
      resource: 'deployments',
      name: 'web',
      subresource: 'status',
      parts: ['deployments', 'web', 'status'],
    });
  });

  test('cluster-wide and cluster-scoped collections', () => {
    expect(info('GET', '/apis/apps/v1/deployments')).toMatchObject({ verb: 'list', namespace: '', resource: 'deployments', name: '' });
    expect(info('GET', '/api/v1/nodes/n1')).toMatchObject({ verb: 'get', namespace: '', resource: 'nodes', name: 'n1' });
  });

  test('verbs by method', () => {
    expect(info('POST', '/api/v1/namespaces/ns/configmaps').verb).toBe('create');
    expect(info('PATCH', '/api/v1/namespaces/ns/configmaps/c').verb).toBe('patch');
    expect(info('DELETE', '/api/v1/namespaces/ns/configmaps/c').verb).toBe('delete');
    expect(info('DELETE', '/api/v1/namespaces/ns/configmaps').verb).toBe('deletecollection');
    expect(info('HEAD', '/api/v1/namespaces/ns/configmaps/c').verb).toBe('get');
    expect(info('HEAD', '/api/v1/namespaces/ns/configmaps').verb).toBe('list');
  });
});

describe('namespaces', () => {
  test('/api/v1/namespaces is the collection', () => {
    expect(info('GET', '/api/v1/namespaces')).toMatchObject({ verb: 'list', namespace: '', resource: 'namespaces', name: '' });
  });

  test('/api/v1/namespaces/foo is the namespace object, in its own namespace', () => {
    expect(info('GET', '/api/v1/namespaces/foo')).toMatchObject({
      verb: 'get',
      namespace: 'foo',
      resource: 'namespaces',
      name: 'foo',
      subresource: '',
      underNamespace: false,
    });
  });

  test('a Namespace named under another namespace is a resource in it (a path no route serves)', () => {
    expect(info('DELETE', '/api/v1/namespaces/a/namespaces/b')).toMatchObject({ namespace: 'a', resource: 'namespaces', name: 'b', underNamespace: true });
    expect(info('GET', '/api/v1/namespaces/a/namespaces/a/status')).toMatchObject({ namespace: 'a', name: 'a', subresource: 'status', underNamespace: true });
  });

  test('status and finalize are namespace subresources, not resources in the namespace', () => {
    expect(info('PUT', '/api/v1/namespaces/foo/status')).toMatchObject({ namespace: 'foo', resource: 'namespaces', name: 'foo', subresource: 'status' });
    expect(info('PUT', '/api/v1/namespaces/foo/finalize')).toMatchObject({
      namespace: 'foo',
      resource: 'namespaces',
      name: 'foo',
      subresource: 'finalize',
      underNamespace: false,
    });
  });

  test('anything else after the namespace name is a resource in it', () => {
    expect(info('GET', '/api/v1/namespaces/foo/secrets')).toMatchObject({ verb: 'list', namespace: 'foo', resource: 'secrets', name: '' });
  });
});

describe('watches', () => {
  test('the watch parameter turns a list into a watch', () => {
    expect(info('GET', '/api/v1/namespaces/ns/pods', 'watch=true').verb).toBe('watch');
    expect(info('GET', '/api/v1/namespaces/ns/pods', 'watch=1').verb).toBe('watch');
    expect(info('GET', '/api/v1/namespaces/ns/pods', 'watch=false').verb).toBe('list');
  });

  test('the legacy /watch/ prefix', () => {
    expect(info('GET', '/api/v1/watch/namespaces/ns/pods')).toMatchObject({ verb: 'watch', namespace: 'ns', resource: 'pods', name: '' });
    expect(info('GET', '/apis/apps/v1/watch/namespaces/ns/deployments/web')).toMatchObject({ verb: 'watch', resource: 'deployments', name: 'web' });
    expect(info('GET', '/api/v1/watch/pods')).toMatchObject({ verb: 'watch', namespace: '', resource: 'pods' });
  });

  test('watch= is read like ListOptions.watch: only absent, 0 or false (any case) mean no', () => {
    expect([null, '0', 'false', 'FALSE', 'False'].map(boolOption)).toEqual([false, false, false, false, false]);
    expect(['true', '1', 'yes', 't', ''].map(boolOption)).toEqual([true, true, true, true, true]);
  });
});

describe('non-resource requests', () => {
  test.each(['/', '/healthz', '/version', '/api', '/api/v1', '/apis', '/apis/apps', '/apis/apps/v1', '/openapi/v2'])('%s', (path) => {
    expect(info('GET', path)).toEqual({ isResourceRequest: false, verb: 'get', path });
  });

  test('the verb is the lower-cased method', () => {
    expect(info('POST', '/healthz')).toEqual({ isResourceRequest: false, verb: 'post', path: '/healthz' });
  });
});
