import type { KubeObject } from '../api/types';
import { validateAttributes, validateLocalSubjectAccessReview, validateSelfSubjectAccessReview, validateSubjectSpec } from './subject-access-reviews';

const review = (spec: unknown, metadata: Record<string, unknown> = {}): KubeObject =>
  ({ apiVersion: 'authorization.k8s.io/v1', kind: 'X', metadata, spec }) as KubeObject;
const fields = (errs: { field: string }[]) => errs.map((e) => e.field);

describe('access review validation', () => {
  test('exactly one of resourceAttributes and nonResourceAttributes; null counts as absent', () => {
    expect(validateAttributes({ resourceAttributes: {} })).toEqual([]);
    expect(fields(validateAttributes({ resourceAttributes: null }))).toEqual(['spec.resourceAttributes']);
    expect(fields(validateAttributes({ resourceAttributes: {}, nonResourceAttributes: {} }))).toEqual(['spec.nonResourceAttributes']);
  });

  test('a subject review needs a user or a group', () => {
    expect(fields(validateSubjectSpec({ nonResourceAttributes: {} }))).toEqual(['spec.user']);
    expect(validateSubjectSpec({ nonResourceAttributes: {}, groups: ['g'] })).toEqual([]);
  });

  test('selectors: raw and requirements are exclusive, one is needed', () => {
    const both = { resourceAttributes: { fieldSelector: { rawSelector: 'a=b', requirements: [{ key: 'a', operator: 'In', values: ['b'] }] } } };
    expect(fields(validateSelfSubjectAccessReview(review(both)))).toEqual(['spec.resourceAttributes.fieldSelector.rawSelector']);
    expect(validateSelfSubjectAccessReview(review({ resourceAttributes: { labelSelector: { rawSelector: 'a=b' } } }))).toEqual([]);
  });

  test('metadata: empty values and managedFields do not count', () => {
    const empty = { creationTimestamp: null, labels: {}, managedFields: [{ manager: 'kubectl' }] };
    expect(validateSelfSubjectAccessReview(review({ resourceAttributes: {} }, empty))).toEqual([]);
    expect(fields(validateSelfSubjectAccessReview(review({ resourceAttributes: {} }, { labels: { a: 'b' } })))).toEqual(['metadata']);
  });

  test('a local review keeps its namespace, matching the spec, and has no non-resource attributes', () => {
    const ok = review({ user: 'u', resourceAttributes: { namespace: 'ns' } }, { namespace: 'ns' });
    expect(validateLocalSubjectAccessReview(ok)).toEqual([]);
    const mismatch = review({ user: 'u', resourceAttributes: { namespace: 'other' } }, { namespace: 'ns' });
    expect(validateLocalSubjectAccessReview(mismatch)).toEqual([
      { type: 'FieldValueInvalid', field: 'spec.resourceAttributes.namespace', value: 'other', detail: 'must match metadata.namespace' },
    ]);
    const nonResource = review({ user: 'u', nonResourceAttributes: { path: '/' } }, { namespace: 'ns' });
    expect(fields(validateLocalSubjectAccessReview(nonResource))).toEqual(['spec.nonResourceAttributes']);
  });
});
