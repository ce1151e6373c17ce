import { scavengesOnOneThread } from './gc-threads';

describe('scavengesOnOneThread', () => {
  test('on two cores or fewer, unless a node flag says how the scavenger runs', () => {
    expect(scavengesOnOneThread([], '', 2)).toBe(true);
    expect(scavengesOnOneThread([], '', 1)).toBe(true);
    expect(scavengesOnOneThread([], '', 4)).toBe(false);
    expect(scavengesOnOneThread(['--parallel-scavenge'], '', 2)).toBe(false);
    expect(scavengesOnOneThread(['--no-parallel-scavenge'], '', 2)).toBe(false);
    expect(scavengesOnOneThread([], '--max-old-space-size=512 --parallel_scavenge', 2)).toBe(false);
    expect(scavengesOnOneThread(['--max-semi-space-size=32'], '--inspect', 2)).toBe(true);
  });
});
