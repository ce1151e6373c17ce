import { isStatusError } from '../api/errors';
import { ensureActive, systemContext, SERVER_OWN_WRITE, withInfo, type RequestContext } from './request-context';

const context = (signal: AbortSignal, deadline: number | null): RequestContext => ({
  ...systemContext({ namespace: 'ns' }, SERVER_OWN_WRITE),
  signal,
  deadline,
});

function failure(ctx: RequestContext): unknown {
  try {
    ensureActive(ctx);
  } catch (err) {
    return err;
  }
  return null;
}

describe('ensureActive', () => {
  test('lets a live request with time left go on', () => {
    expect(failure(context(new AbortController().signal, Date.now() + 60_000))).toBeNull();
    expect(failure(systemContext({ namespace: '' }, SERVER_OWN_WRITE))).toBeNull();
  });

  test('refuses a request whose client went away, as kube says it', () => {
    const abort = new AbortController();
    abort.abort();
    const err = failure(context(abort.signal, null));
    expect(isStatusError(err) && err.status).toMatchObject({
      code: 504,
      reason: 'Timeout',
      message: 'Timeout: request did not complete within requested timeout - context canceled',
    });
  });

  test('refuses a request past its deadline', () => {
    const err = failure(context(new AbortController().signal, Date.now() - 1));
    expect(isStatusError(err) && err.status.message).toBe('Timeout: request did not complete within requested timeout - context deadline exceeded');
  });

  test('a narrowed context keeps the request signal, user and deadline', () => {
    const abort = new AbortController();
    const narrowed = withInfo(context(abort.signal, 5), { namespace: 'other', name: 'x' });
    expect(narrowed.info).toMatchObject({ namespace: 'other', name: 'x' });
    expect(narrowed.deadline).toBe(5);
    abort.abort();
    expect(narrowed.signal.aborted).toBe(true);
  });
});
