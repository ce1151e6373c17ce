import { parseRequestInfo } from '../request-info';
import { statusOf } from '../../../test/harness/status-of';
import { deadlineExceeded, MAX_TIMER_MS, requestDeadlineMs } from './request-deadline';

const config = { requestTimeoutMs: 60_000, minRequestTimeoutSeconds: 1800 };
const deadline = (method: string, target: string, c = config): number | null => {
  const [path, query = ''] = target.split('?');
  const q = new URLSearchParams(query);
  return requestDeadlineMs(parseRequestInfo(method, path, q), q, c);
};

test('requests get --request-timeout, shortened by a smaller ?timeout=', () => {
  expect(deadline('GET', '/api/v1/pods')).toBe(60_000);
  expect(deadline('POST', '/api/v1/namespaces/a/pods?timeout=5s')).toBe(5000);
  expect(deadline('GET', '/api/v1/pods?timeout=10m')).toBe(60_000);
  expect(deadline('GET', '/api/v1/pods?timeout=0s')).toBe(60_000);
  expect(deadline('GET', '/version')).toBe(60_000);
  expect(deadline('GET', '/api/v1/pods', { ...config, requestTimeoutMs: 0 })).toBeNull();
  expect(statusOf(() => deadline('GET', '/api/v1/pods?timeout=soon')).message).toBe(
    'invalid timeout specified in the request URL - time: invalid duration "soon"',
  );
});

test('watches follow timeoutSeconds, else 1-2x --min-request-timeout; other long-running requests have none', () => {
  expect(deadline('GET', '/api/v1/pods?watch=1&timeoutSeconds=5')).toBe(5000);
  expect(deadline('GET', '/api/v1/pods?watch=1&timeoutSeconds=99999999999')).toBe(MAX_TIMER_MS);
  const random = deadline('GET', '/api/v1/pods?watch=1')!;
  expect(random).toBeGreaterThanOrEqual(1_800_000);
  expect(random).toBeLessThanOrEqual(3_600_000);
  expect(deadline('GET', '/api/v1/pods?watch=1', { ...config, minRequestTimeoutSeconds: 0 })).toBeNull();
  expect(deadline('GET', '/api/v1/namespaces/a/pods/p/log')).toBeNull();
  expect(deadline('POST', '/api/v1/namespaces/a/pods/p/exec')).toBeNull();
});

test("the timeout answer is kube-apiserver's", () => {
  expect(deadlineExceeded().status).toMatchObject({
    code: 504,
    reason: 'Timeout',
    message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
  });
});
