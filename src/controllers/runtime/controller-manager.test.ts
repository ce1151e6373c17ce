import { FakeCluster } from '../../../test/harness/fake-object-store';
import { ManualClock } from './clock';
import { ControllerManager, controllerEnabled } from './controller-manager';
import type { Controller } from './controller';
import type { CachedInformer } from './informer';
import { SharedInformers } from './shared-informers';

/** A controller that only reads its view of a shared informer. */
class ReadingController implements Controller {
  constructor(
    readonly name: string,
    private readonly view: CachedInformer,
  ) {}
  async start(): Promise<void> {
    this.view.start();
    await this.view.waitForSync();
  }
  stop(): void {
    this.view.stop();
  }
  problem(): string | null {
    return null;
  }
}

class FakeController implements Controller {
  started = 0;
  stopped = 0;
  trouble: string | null = null;
  constructor(readonly name: string) {}
  async start(): Promise<void> {
    this.started++;
  }
  stop(): void {
    this.stopped++;
  }
  problem(): string | null {
    return this.trouble;
  }
}

const results = async (manager: ControllerManager): Promise<Record<string, string>> => {
  const out: Record<string, string> = {};
  for (const check of manager.healthChecks()) {
    out[check.name] = await check.check().then(
      () => 'ok',
      (err: Error) => err.message,
    );
  }
  return out;
};

describe('ControllerManager', () => {
  test('without an elector every controller runs, and a controller with a problem fails its check', async () => {
    const manager = new ControllerManager(() => undefined);
    const always = new FakeController('poststarthook/serving');
    const leaderOnly = new FakeController('namespace-controller');
    manager.add(always, { leaderOnly: false });
    manager.add(leaderOnly, { leaderOnly: true });
    await manager.start(null);
    expect([always.started, leaderOnly.started]).toEqual([1, 1]);
    expect(await results(manager)).toEqual({ 'poststarthook/serving': 'ok', 'namespace-controller': 'ok' });
    leaderOnly.trouble = 'worker stuck on ns1 for 61s';
    expect(await results(manager)).toEqual({ 'poststarthook/serving': 'ok', 'namespace-controller': 'worker stuck on ns1 for 61s' });
    await manager.stop();
    expect([always.stopped, leaderOnly.stopped]).toEqual([1, 1]);
    // Stopped controllers are not running: their checks fail.
    expect(await results(manager)).toEqual({
      'poststarthook/serving': 'poststarthook/serving is not running',
      'namespace-controller': 'namespace-controller is not running',
    });
  });

  test('leader-only controllers start and stop with leadership', async () => {
    const manager = new ControllerManager(() => undefined);
    const leaderOnly = new FakeController('garbage-collector-controller');
    manager.add(leaderOnly, { leaderOnly: true });
    manager.leadership.startedLeading();
    await Promise.resolve();
    expect(leaderOnly.started).toBe(1);
    manager.leadership.stoppedLeading();
    expect(leaderOnly.stopped).toBe(1);
    manager.leadership.startedLeading();
    await Promise.resolve();
    expect(leaderOnly.started).toBe(2);
  });

  test("leader-only controllers' shared informers watch while this replica leads; the manager's stop ends every one", async () => {
    const clock = new ManualClock();
    const store = new FakeCluster().store('', 'v1', 'pods');
    const watches = jest.spyOn(store, 'watch');
    const informers = new SharedInformers(() => undefined, clock);
    const manager = new ControllerManager(() => undefined, ['*'], informers);
    const reader = (name: string) => new ReadingController(name, informers.informer(store, {}, { name }));
    manager.add(reader('leader-one'), { leaderOnly: true });
    manager.add(reader('leader-two'), { leaderOnly: true });
    manager.leadership.startedLeading();
    await clock.advance(0);
    expect(watches).toHaveBeenCalledTimes(1);
    const [shared] = await Promise.all(watches.mock.results.map((r) => r.value));
    manager.leadership.stoppedLeading();
    manager.leadership.startedLeading();
    await clock.advance(0);
    // Losing the lease stopped the one watch both read; leading again started another.
    expect(shared.isClosed).toBe(true);
    expect(watches).toHaveBeenCalledTimes(2);
    const again = await watches.mock.results[1].value;
    await manager.stop();
    expect(again.isClosed).toBe(true);
    informers.informer(store, {}, { name: 'after the stop' }).start();
    await clock.advance(0);
    expect(watches).toHaveBeenCalledTimes(2);
  });
});

test('--controllers: the first explicit choice wins, "*" enables the rest, nothing without it', () => {
  expect(controllerEnabled('disruption-controller', ['*'])).toBe(true);
  expect(controllerEnabled('disruption-controller', ['*', '-disruption-controller'])).toBe(false);
  expect(controllerEnabled('disruption-controller', ['-disruption-controller', 'disruption-controller'])).toBe(false);
  expect(controllerEnabled('namespace-controller', ['disruption-controller'])).toBe(false);
  expect(controllerEnabled('disruption-controller', ['disruption-controller'])).toBe(true);
});
