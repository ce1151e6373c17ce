import { finalizersForDeletion, namespaceFinalizersForDeletion } from './deletion-finalizers';

describe('finalizersForDeletion (store.go deletionFinalizersForGarbageCollection)', () => {
  test.each([
    [[], {}, [], false],
    [[], { propagationPolicy: 'Orphan' }, ['orphan'], true],
    [[], { propagationPolicy: 'Foreground' }, ['foregroundDeletion'], true],
    [[], { propagationPolicy: 'Background' }, [], false],
    [[], { orphanDependents: true }, ['orphan'], true],
    [[], { orphanDependents: false }, [], false],
    [['a/b', 'orphan'], {}, ['a/b', 'orphan'], false],
    [['a/b', 'orphan'], { propagationPolicy: 'Background' }, ['a/b'], true],
    [['foregroundDeletion'], { propagationPolicy: 'Orphan' }, ['orphan'], true],
    [['foregroundDeletion', 'x/y'], { orphanDependents: false }, ['x/y'], true],
  ] as const)('%j with %j -> %j', (finalizers, opts, want, changed) => {
    expect(finalizersForDeletion([...finalizers], opts, 'DeleteDependents')).toEqual({ changed, finalizers: want });
  });

  test.each([
    [[], {}, ['orphan'], true],
    [[], { propagationPolicy: 'Background' }, [], false],
    [[], { orphanDependents: false }, [], false],
    [['foregroundDeletion'], {}, ['foregroundDeletion'], false],
  ] as const)('a kind that orphans by default (ReplicationController): %j with %j -> %j', (finalizers, opts, want, changed) => {
    expect(finalizersForDeletion([...finalizers], opts, 'OrphanDependents')).toEqual({ changed, finalizers: want });
  });

  test('kinds the collector does not handle never get its finalizers', () => {
    expect(finalizersForDeletion([], { propagationPolicy: 'Foreground' }, 'Unsupported')).toEqual({ changed: false, finalizers: [] });
  });
});

describe('namespaceFinalizersForDeletion', () => {
  test.each([
    [[], {}, []],
    [['orphan'], {}, ['orphan']],
    [['orphan'], { propagationPolicy: 'Foreground' }, ['foregroundDeletion']],
    [[], { orphanDependents: false }, ['foregroundDeletion']],
    [['x/y'], { propagationPolicy: 'Orphan' }, ['x/y', 'orphan']],
  ] as const)('%j with %j -> %j', (finalizers, opts, want) => {
    expect(namespaceFinalizersForDeletion([...finalizers], opts)).toEqual(want);
  });
});
