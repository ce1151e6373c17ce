import { runWalk, runWalkInSlices, type Walk } from './loop-slices';

function* counted(n: number, seen: number[]): Walk<number> {
  for (let i = 0; i < n; i++) {
    seen.push(i);
    yield;
  }
  return seen.length;
}

describe('walks (issue 25)', () => {
  test('run through, or with a slice at every yield, to the same result', async () => {
    expect(runWalk(counted(5, []))).toBe(5);
    let slices = 0;
    const seen: number[] = [];
    expect(await runWalkInSlices(counted(5, seen), async () => void slices++)).toBe(5);
    expect([seen, slices]).toEqual([[0, 1, 2, 3, 4], 5]);
  });

  test('an error thrown inside the walk reaches the caller', async () => {
    function* failing(): Walk<void> {
      yield;
      throw new Error('mid-walk');
    }
    expect(() => runWalk(failing())).toThrow('mid-walk');
    await expect(runWalkInSlices(failing(), async () => {})).rejects.toThrow('mid-walk');
  });
});
