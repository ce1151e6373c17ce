import type { KubeObject } from '../api/types';
import { validateClaimStatusUpdate, validateDaemonSetStatusUpdate, validateNamespaceStatusUpdate, validatePodStatusUpdate } from './status-validation';

const withStatus = (status: Record<string, unknown>, meta: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'X',
  metadata: { name: 'x', ...meta },
  status,
});

describe('status strategies', () => {
  test('a claim capacity below zero is reported as Quantity.Value(), rounded away from zero', () => {
    expect(validateClaimStatusUpdate(withStatus({ capacity: { storage: '-1Gi', other: '-500m', fine: '2Gi' } }))).toEqual([
      { type: 'FieldValueInvalid', field: 'status.capacity[storage]', value: -1073741824, detail: 'must be a valid resource quantity' },
      { type: 'FieldValueInvalid', field: 'status.capacity[other]', value: -1, detail: 'must be a valid resource quantity' },
    ]);
  });

  test('collisionCount never goes down, and counters are not negative', () => {
    const errs = validateDaemonSetStatusUpdate(withStatus({ numberReady: -1, collisionCount: 1 }), withStatus({ collisionCount: 2 }));
    expect(errs.map((e) => `${e.field}: ${e.detail}`)).toEqual([
      'status.numberReady: must be greater than or equal to 0',
      'status.collisionCount: cannot be decremented',
    ]);
  });

  test("a namespace's phase follows deletionTimestamp; no phase is Active", () => {
    expect(validateNamespaceStatusUpdate(withStatus({}))).toEqual([]);
    expect(validateNamespaceStatusUpdate(withStatus({ phase: 'Active' }, { deletionTimestamp: '2024-01-01T00:00:00Z' })).map((e) => e.detail)).toEqual([
      "may only be 'Terminating' if `deletionTimestamp` is not empty",
    ]);
  });

  test('pod IPs: each valid, then one per family, then no duplicates; the nominated node first', () => {
    const errs = validatePodStatusUpdate(
      withStatus({ podIPs: [{ ip: '10.0.0.1' }, { ip: '10.0.0.1' }, { ip: 'nope' }], nominatedNodeName: 'Bad_Node' }),
      withStatus({}),
    );
    expect(errs.map((e) => `${e.type} ${e.field}`)).toEqual([
      'FieldValueInvalid status.nominatedNodeName',
      'FieldValueInvalid status.podIPs[2]',
      'InternalError status.podIPs',
      'FieldValueInvalid status.podIPs',
      'FieldValueDuplicate status.podIPs[1]',
    ]);
  });
});
