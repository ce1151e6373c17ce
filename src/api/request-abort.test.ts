import { abortSignalOf, onAbort, RequestAbort } from './request-abort';

test('hooks run once at the end, in order; a taken-back hook does not run; a later hook runs at once', () => {
  const end = new RequestAbort();
  const ran: string[] = [];
  onAbort(end, () => ran.push('a'));
  const takeBack = onAbort(end, () => ran.push('b'));
  onAbort(end, () => ran.push('c'));
  takeBack();
  expect(end.aborted).toBe(false);
  end.abort('deadline');
  end.abort('again');
  expect(ran).toEqual(['a', 'c']);
  expect(end.reason).toBe('deadline');
  onAbort(end, () => ran.push('late'));
  expect(ran).toEqual(['a', 'c', 'late']);
});

test('the AbortSignal made from it follows it, made before or after the end', () => {
  const before = new RequestAbort();
  const signal = abortSignalOf(before);
  expect(signal.aborted).toBe(false);
  before.abort(new Error('gone'));
  expect(signal.aborted).toBe(true);
  expect((signal.reason as Error).message).toBe('gone');

  const after = new RequestAbort();
  after.abort('shutdown');
  expect(abortSignalOf(after).aborted).toBe(true);
  expect(abortSignalOf(after).reason).toBe('shutdown');
});

test('a hook that throws does not keep the others or the signal from the end; its error is thrown on the next tick', () => {
  const end = new RequestAbort();
  const signal = end.signal;
  const ran: string[] = [];
  onAbort(end, () => {
    throw new Error('hook failed');
  });
  onAbort(end, () => ran.push('after'));
  const ticks: (() => void)[] = [];
  const nextTick = jest.spyOn(process, 'nextTick').mockImplementation((fn: Function) => void ticks.push(fn as () => void));
  try {
    end.abort();
  } finally {
    nextTick.mockRestore();
  }
  expect(ran).toEqual(['after']);
  expect(signal.aborted).toBe(true);
  expect(ticks).toHaveLength(1);
  expect(ticks[0]).toThrow('hook failed');
});

test('onAbort on an AbortSignal: at once when it has ended, else once when it ends', () => {
  const controller = new AbortController();
  const ran: string[] = [];
  const takeBack = onAbort(controller.signal, () => ran.push('x'));
  controller.abort();
  takeBack();
  onAbort(controller.signal, () => ran.push('y'));
  expect(ran).toEqual(['x', 'y']);
});
