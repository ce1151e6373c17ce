import { ManualClock } from './clock';
import { PeriodicController } from './periodic';

class Counting extends PeriodicController {
  readonly name = 'counting';
  passes = 0;
  failing = false;

  protected async pass(): Promise<void> {
    this.passes++;
    if (this.failing) throw new Error('etcd is away');
  }
}

describe('PeriodicController', () => {
  test('a pass at start, one every interval; a failure is its problem and is retried soon', async () => {
    const clock = new ManualClock();
    const logged: string[] = [];
    const c = new Counting(60_000, (m) => logged.push(m), clock);
    await c.start();
    expect(c.passes).toBe(1);
    await clock.advance(59_000);
    expect(c.passes).toBe(1);
    await clock.advance(1_000);
    expect(c.passes).toBe(2);
    c.failing = true;
    await clock.advance(60_000);
    expect(c.passes).toBe(3);
    expect(c.problem()).toBe('counting: etcd is away');
    expect(logged).toEqual(['counting failed']);
    c.failing = false;
    await clock.advance(2_000);
    expect(c.passes).toBe(4);
    expect(c.problem()).toBeNull();
    c.stop();
    await clock.advance(120_000);
    expect(c.passes).toBe(4);
  });
});
