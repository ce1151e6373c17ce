import { FaultLog } from './fault-log';

describe('FaultLog', () => {
  function setup(): { log: FaultLog; lines: string[]; advance(ms: number): void } {
    let now = 0;
    const lines: string[] = [];
    const log = new FaultLog(
      (message, err) => lines.push(err === undefined ? message : `${message}: ${String(err)}`),
      'etcd is failing',
      () => now,
    );
    return { log, lines, advance: (ms) => (now += ms) };
  }

  it('logs the first failure and the recovery once, with no repeats in between', () => {
    const { log, lines, advance } = setup();
    for (let i = 0; i < 100; i++) {
      log.failed('connection refused');
      advance(50);
    }
    log.recovered('etcd answers again');
    log.recovered('etcd answers again');
    expect(lines).toEqual(['etcd is failing: connection refused', 'etcd answers again after 5s']);
  });

  it('reports a lasting fault at growing intervals, counting what it held back', () => {
    const { log, lines, advance } = setup();
    for (let t = 0; t <= 70_000; t += 1000) {
      log.failed('timeout');
      advance(1000);
    }
    expect(lines).toEqual([
      'etcd is failing: timeout',
      'etcd is failing (still, for 10s; 10 more failures): timeout',
      'etcd is failing (still, for 30s; 20 more failures): timeout',
      'etcd is failing (still, for 70s; 40 more failures): timeout',
    ]);
  });

  it('logs nothing on recovery when nothing failed', () => {
    const { log, lines } = setup();
    log.recovered('fine');
    expect(lines).toEqual([]);
  });
});
