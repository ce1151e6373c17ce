import type { KubeObject } from '../api/types';
import { validatePodBinding } from './pod-binding';
import { validateTokenRequest } from './serviceaccount-token';

const binding = (target: Record<string, unknown>): KubeObject => ({ apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target }) as KubeObject;

test('ValidatePodBinding: a target name, and a kind that is empty or Node', () => {
  expect(validatePodBinding(binding({ name: 'n' }))).toEqual([]);
  expect(validatePodBinding(binding({ kind: 'Node', name: 'n' }))).toEqual([]);
  expect(validatePodBinding(binding({ kind: 'Pod' })).map((e) => [e.type, e.field])).toEqual([
    ['FieldValueNotSupported', 'target.kind'],
    ['FieldValueRequired', 'target.name'],
  ]);
});

test('ValidateTokenRequest: between ten minutes and 2^32 seconds', () => {
  expect(validateTokenRequest(600)).toEqual([]);
  expect(validateTokenRequest(599)[0]).toMatchObject({ field: 'spec.expirationSeconds', detail: 'may not specify a duration less than 10 minutes' });
  expect(validateTokenRequest(2 ** 32 + 1)[0]).toMatchObject({ detail: 'may not specify a duration larger than 2^32 seconds' });
});
