import type { IncomingMessage, ServerResponse } from 'node:http';
import { withProbabilisticGoaway } from './goaway';

/** What the filter passes on: the Connection header it set, if any. */
function serve(chance: number, httpVersionMajor: number, random: number): string | undefined {
  const headers = new Map<string, string>();
  const res = { setHeader: (name: string, value: string) => headers.set(name, value) } as unknown as ServerResponse;
  let reached = false;
  withProbabilisticGoaway(
    chance,
    () => (reached = true),
    () => random,
  )({ httpVersionMajor } as IncomingMessage, res);
  expect(reached).toBe(true);
  return headers.get('Connection');
}

test('an HTTP/2 request drawn below the chance is answered with Connection: close (a GOAWAY); others and HTTP/1.1 ones are left alone', () => {
  expect(serve(0.02, 2, 0.019)).toBe('close');
  expect(serve(0.02, 2, 0.02)).toBeUndefined();
  expect(serve(0.02, 1, 0)).toBeUndefined();
  expect(serve(0, 2, 0)).toBeUndefined();
});
