import { badRequest, timeout, type StatusError } from '../../api/errors';
import { goDuration } from '../../server/duration';
import type { RequestInfo } from '../request-info';
import { isLongRunning } from './long-running';

export interface DeadlineConfig {
  /** --request-timeout, in milliseconds. */
  requestTimeoutMs: number;
  /** --min-request-timeout, in seconds. */
  minRequestTimeoutSeconds: number;
}

/** The longest a node timer waits; a later deadline is as good as none. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** What a request past its deadline is answered (the timeout filter's NewTimeoutError). */
export function deadlineExceeded(): StatusError {
  return timeout('request did not complete within requested timeout - context deadline exceeded', 0);
}

/**
 * How long a request may take, in milliseconds, or null for no deadline:
 * - a watch ends after its timeoutSeconds, or else at a random time between --min-request-timeout
 *   and twice that (the watch handler's own rule, so that watches do not all end at once);
 * - other long-running requests have none;
 * - any other request has --request-timeout, shortened by a smaller positive `timeout` query
 *   parameter (WithRequestDeadline; an unparsable one is a 400).
 */
export function requestDeadlineMs(info: RequestInfo, query: URLSearchParams, config: DeadlineConfig): number | null {
  if (isLongRunning(info)) {
    if (info.verb !== 'watch') return null;
    // As strconv.ParseInt reads it (a sign allowed); the watch handler's timer: zero takes the
    // randomized minimum, a negative one fires at once.
    const given = query.get('timeoutSeconds');
    const asked = given !== null && /^[-+]?[0-9]+$/.test(given) ? Number(given) : 0;
    if (asked < 0) return 0;
    const seconds = asked > 0 ? asked : config.minRequestTimeoutSeconds * (1 + Math.random());
    return seconds > 0 ? Math.min(seconds * 1000, MAX_TIMER_MS) : null;
  }
  const raw = query.get('timeout');
  let ms = config.requestTimeoutMs;
  if (raw !== null && raw !== '') {
    const asked = goDuration(raw);
    if (asked === null) throw badRequest(`invalid timeout specified in the request URL - time: invalid duration ${JSON.stringify(raw)}`);
    if (asked > 0 && asked < ms) ms = asked;
  }
  return ms > 0 ? Math.min(ms, MAX_TIMER_MS) : null;
}
