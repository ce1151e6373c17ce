import { ManualClock } from '../../src/api/clock';
import { SERVER_OWN_WRITE, systemContext } from '../../src/registry/request-context';
import type { ControllerDeps } from '../../src/controllers/runtime/controller-deps';
import type { EventRecorder } from '../../src/controllers/runtime/event-recorder';
import { SharedInformers } from '../../src/controllers/runtime/shared-informers';
import { FakeCluster } from './fake-object-store';

/**
 * What a controller is built from, over a FakeCluster and a ManualClock: its writes use the
 * server's own context, its events and logged errors are collected as text for the test to read.
 */
export function fakeControllerDeps() {
  const cluster = new FakeCluster();
  const clock = new ManualClock();
  const events: string[] = [];
  const errors: unknown[] = [];
  const ctx = (namespace: string) => systemContext({ namespace }, SERVER_OWN_WRITE);
  const log = (message: string, err?: unknown): void => void errors.push(err ?? message);
  const recorder: EventRecorder = {
    event: (obj, type, reason, message) => void events.push(`${type} ${reason} ${obj.metadata.name}: ${message}`),
    eventAbout: (ref, type, reason, message) => void events.push(`${type} ${reason} ${ref.name}: ${message}`),
    forHost: () => recorder,
  };
  const deps: ControllerDeps = {
    store: (group, version, resource) => cluster.store(group, version, resource),
    storeOfKind: () => undefined,
    aggregated: { get: () => Promise.reject(new Error('no aggregated APIs here')) },
    admitted: ctx,
    own: ctx,
    clock,
    log,
    informers: new SharedInformers(log, clock),
    recorder: () => recorder,
  };
  return { cluster, clock, events, errors, ctx, deps };
}

/** Moves the clock in small steps until `done`, so the controller's queue and timers run; throws if it never is. */
export async function settle(clock: ManualClock, done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await clock.advance(10);
  if (!done()) throw new Error('the controller did not settle');
}
