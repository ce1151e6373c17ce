import { StatusError } from '../../src/api/errors';

/** The Status a call throws; fails the test when it throws anything else or nothing. */
export function statusOf(fn: () => unknown): StatusError['status'] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(StatusError);
    return (err as StatusError).status;
  }
  throw new Error('no error');
}
