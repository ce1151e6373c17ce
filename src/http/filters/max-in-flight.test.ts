import { isStatusError } from '../../api/errors';
import { parseRequestInfo } from '../request-info';
import { MaxInFlight } from './max-in-flight';

const info = (method: string, path: string) => parseRequestInfo(method, path, new URLSearchParams());

test('reads and writes have their own limits; a release frees a slot once', () => {
  const limiter = new MaxInFlight({ readOnly: 1, mutating: 1 });
  const read = limiter.admit(info('GET', '/api/v1/pods'));
  const write = limiter.admit(info('POST', '/api/v1/namespaces/a/pods'));
  expect(isStatusError(read) || isStatusError(write)).toBe(false);
  const refused = limiter.admit(info('DELETE', '/api/v1/namespaces/a/pods/p'));
  expect(isStatusError(refused) && refused.status).toMatchObject({ code: 429, reason: 'TooManyRequests', details: { retryAfterSeconds: 1 } });
  expect(isStatusError(refused) && refused.headers).toEqual({ 'Retry-After': '1' });
  expect(isStatusError(limiter.admit(info('GET', '/version')))).toBe(true);
  (write as () => void)();
  (write as () => void)();
  expect(limiter.inFlight).toEqual({ readOnly: 1, mutating: 0 });
  expect(isStatusError(limiter.admit(info('PATCH', '/api/v1/namespaces/a/pods/p')))).toBe(false);
});

test('0 means no limit', () => {
  const limiter = new MaxInFlight({ readOnly: 0, mutating: 0 });
  for (let i = 0; i < 1000; i++) expect(isStatusError(limiter.admit(info('POST', '/api/v1/namespaces')))).toBe(false);
});
