import { resourceExpired } from '../../api/errors';
import type { KubeObject } from '../../api/types';
import type { WatchItem } from '../../storage/interfaces';
import { WatchChannel } from '../../storage/watch-channel';
import { ManualClock } from '../runtime/clock';
import { Informer, type ListWatch } from '../runtime/informer';
import { CONTROLLER_UID_INDEX, controllerUidIndexers, ownedBy } from './controller-uid-index';

const pod = (name: string, namespace: string, rv: number, owner?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    namespace,
    resourceVersion: String(rv),
    ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: owner, uid: `uid-${owner}`, controller: true }] } : {}),
  },
});
const rs = (name: string, namespace = 'ns'): KubeObject => ({ apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name, namespace, uid: `uid-${name}` } });
const names = (objs: KubeObject[]): string[] => objs.map((o) => `${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`).sort();

/** A list of `items` at revision 10, then a watch the test pushes into. */
function informerOver(items: KubeObject[]): {
  informer: Informer;
  clock: ManualClock;
  watch: () => WatchChannel<WatchItem>;
  relist: (next: KubeObject[]) => void;
} {
  const clock = new ManualClock();
  let listed = items;
  let tooOld = false;
  const channels: WatchChannel<WatchItem>[] = [];
  const source: ListWatch = {
    list: async () => ({ items: structuredClone(listed), resourceVersion: '10' }),
    watch: async () => {
      if (tooOld) {
        tooOld = false;
        throw resourceExpired('too old resource version: 10 (20)');
      }
      const channel = new WatchChannel<WatchItem>();
      channels.push(channel);
      return channel;
    },
  };
  const informer = new Informer(source, {}, { name: 'pods', log: () => undefined, clock, indexers: controllerUidIndexers });
  return { informer, clock, watch: () => channels[channels.length - 1], relist: (next) => ((listed = next), (tooOld = true)) };
}

describe('controller uid index', () => {
  test('files objects under their controller uid and orphans under their namespace, following adds, changes of owner and deletes', async () => {
    const { informer, clock, watch } = informerOver([pod('a', 'ns', 1, 'web'), pod('b', 'ns', 2), pod('c', 'other', 3)]);
    informer.start();
    await informer.waitForSync();
    await clock.advance(0);
    expect(names(ownedBy(informer, rs('web'), false))).toEqual(['ns/a@1']);
    expect(names(ownedBy(informer, rs('web'), true))).toEqual(['ns/a@1', 'ns/b@2']);
    expect(names(ownedBy(informer, rs('web', 'other'), true))).toEqual(['other/c@3']);

    watch().push({ type: 'ADDED', key: 'ns/d', object: pod('d', 'ns', 11, 'web'), revision: 11 });
    // b is adopted by web, a released to be an orphan, and a pod of another set comes and goes.
    watch().push({ type: 'MODIFIED', key: 'ns/b', object: pod('b', 'ns', 12, 'web'), revision: 12 });
    watch().push({ type: 'MODIFIED', key: 'ns/a', object: pod('a', 'ns', 13), revision: 13 });
    watch().push({ type: 'ADDED', key: 'ns/e', object: pod('e', 'ns', 14, 'api'), revision: 14 });
    watch().push({ type: 'DELETED', key: 'ns/e', object: pod('e', 'ns', 15, 'api'), revision: 15 });
    watch().push({ type: 'MODIFIED', key: 'ns/d', object: pod('d', 'ns', 16, 'web'), revision: 16 });
    await clock.advance(0);
    expect(names(ownedBy(informer, rs('web'), false))).toEqual(['ns/b@12', 'ns/d@16']);
    expect(names(ownedBy(informer, rs('web'), true))).toEqual(['ns/a@13', 'ns/b@12', 'ns/d@16']);
    expect(ownedBy(informer, rs('api'), false)).toEqual([]);
    expect(informer.byIndex(CONTROLLER_UID_INDEX, 'uid-api')).toEqual([]);
    informer.stop();
  });

  test('a pod in another namespace naming the owner uid is not the owner’s', async () => {
    const { informer, clock } = informerOver([pod('a', 'ns', 1, 'web'), pod('x', 'other', 2, 'web')]);
    informer.start();
    await informer.waitForSync();
    await clock.advance(0);
    expect(names(ownedBy(informer, rs('web'), true))).toEqual(['ns/a@1']);
    expect(names(informer.byIndex(CONTROLLER_UID_INDEX, 'uid-web'))).toEqual(['ns/a@1', 'other/x@2']);
    informer.stop();
  });

  test('a relist after a lost watch refiles what changed and drops what went missing', async () => {
    const { informer, clock, watch, relist } = informerOver([pod('a', 'ns', 1, 'web'), pod('b', 'ns', 2, 'web')]);
    informer.start();
    await informer.waitForSync();
    await clock.advance(0);
    // The watch is lost; the next one is refused as too old, so the informer lists again.
    relist([pod('b', 'ns', 21)]);
    watch().fail(new Error('etcd watch lost'));
    await clock.advance(1600);
    expect(names(ownedBy(informer, rs('web'), false))).toEqual([]);
    expect(names(ownedBy(informer, rs('web'), true))).toEqual(['ns/b@21']);
    informer.stop();
  });

  test('an informer asked for an index it was not given throws', () => {
    const { informer } = informerOver([]);
    expect(() => informer.byIndex('nope', 'x')).toThrow('informer pods has no index nope');
  });
});
