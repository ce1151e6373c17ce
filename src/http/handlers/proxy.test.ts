import { parseRequestInfo, type ResourceRequestInfo } from '../request-info';
import { pathAfterSubresource } from './proxy';

const tail = (url: string): string => pathAfterSubresource(url, parseRequestInfo('GET', url.split('?')[0], new URLSearchParams()) as ResourceRequestInfo);

test('the path after <name>/<subresource>, escaped as it came', () => {
  expect(tail('/api/v1/namespaces/default/services/web:80/proxy/a/b%2Fc/?q=1')).toBe('/a/b%2Fc/');
  expect(tail('/api/v1/namespaces/default/pods/web/proxy')).toBe('');
  expect(tail('/api/v1/namespaces/default/pods/web/proxy/')).toBe('/');
  expect(tail('/api/v1/nodes/n1/proxy/stats/summary')).toBe('/stats/summary');
});
