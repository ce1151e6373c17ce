import { fieldErrorMessage, type FieldErrorList } from './field-errors';
import { validateAnnotations, validateLabelSelector, validateLabels, validateObjectMeta, validateObjectMetaUpdate } from './meta-validation';
import { nameIsDnsSubdomain } from './name-validation';
import type { ObjectMeta } from './types';

const namespaced = { namespaced: true, validateName: nameIsDnsSubdomain, kubeFinalizerNames: true };
const clusterScoped = { namespaced: false, validateName: nameIsDnsSubdomain, kubeFinalizerNames: true };
const messages = (errs: FieldErrorList): string[] => errs.map(fieldErrorMessage);

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

describe('validateObjectMeta (create)', () => {
  test('a valid object has no errors', () => {
    expect(validateObjectMeta({ name: 'web', namespace: 'default', labels: { app: 'web' } }, namespaced)).toEqual([]);
  });

  test('name is required', () => {
    expect(messages(validateObjectMeta({ namespace: 'default' }, namespaced))).toEqual(['metadata.name: Required value: name or generateName is required']);
  });

  test('generateName is validated even after the name was generated from it', () => {
    expect(messages(validateObjectMeta({ generateName: 'Web-', name: 'Web-x7k2p', namespace: 'ns' }, namespaced))).toEqual([
      `metadata.generateName: Invalid value: "Web-": ${SUBDOMAIN_MSG}`,
      `metadata.name: Invalid value: "Web-x7k2p": ${SUBDOMAIN_MSG}`,
    ]);
  });

  test('namespace: required when namespaced, forbidden when cluster-scoped', () => {
    expect(messages(validateObjectMeta({ name: 'a' }, namespaced))).toEqual(['metadata.namespace: Required value']);
    expect(messages(validateObjectMeta({ name: 'a', namespace: 'ns' }, clusterScoped))).toEqual(['metadata.namespace: Forbidden: not allowed on this type']);
    expect(messages(validateObjectMeta({ name: 'a', namespace: 'a.b' }, namespaced))).toEqual([
      'metadata.namespace: Invalid value: "a.b": must not contain dots',
    ]);
    expect(messages(validateObjectMeta({ name: 'a', namespace: 'A' }, namespaced))[0]).toMatch(
      /^metadata\.namespace: Invalid value: "A": a lowercase RFC 1123 label must consist/,
    );
  });

  test('generation may not be negative', () => {
    expect(messages(validateObjectMeta({ name: 'a', generation: -1 }, clusterScoped))).toEqual([
      'metadata.generation: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });

  test('finalizers: qualified names, then the kube name check with an index', () => {
    expect(validateObjectMeta({ name: 'a', finalizers: ['kubernetes', 'orphan', 'example.com/x'] }, clusterScoped)).toEqual([]);
    // apimachinery's ValidateObjectMeta (CRDs, custom resources) takes any qualified name.
    expect(
      validateObjectMeta({ name: 'a', finalizers: ['customresourcecleanup.apiextensions.k8s.io'] }, { ...clusterScoped, kubeFinalizerNames: false }),
    ).toEqual([]);
    expect(messages(validateObjectMeta({ name: 'a', finalizers: ['example.com/x', 'custom'] }, clusterScoped))).toEqual([
      'metadata.finalizers[1]: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
    ]);
    const bad = messages(validateObjectMeta({ name: 'a', finalizers: ['bad_'] }, clusterScoped));
    expect(bad).toHaveLength(2);
    expect(bad[0]).toMatch(/^metadata\.finalizers: Invalid value: "bad_": name part must consist of/);
    expect(bad[1]).toBe('metadata.finalizers[0]: Invalid value: "bad_": name is neither a standard finalizer name nor is it fully qualified');
  });

  test('orphan and foregroundDeletion together', () => {
    expect(messages(validateObjectMeta({ name: 'a', finalizers: ['orphan', 'foregroundDeletion'] }, clusterScoped))).toEqual([
      'metadata.finalizers: Invalid value: ["orphan","foregroundDeletion"]: finalizer orphan and foregroundDeletion cannot be both set',
    ]);
  });

  test('owner references: required parts, one controller, no Event owners', () => {
    const meta: ObjectMeta = {
      name: 'a',
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs1', uid: 'u1', controller: true },
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs2', uid: 'u2', controller: true },
        { apiVersion: '', kind: '', name: '', uid: '' },
      ],
    };
    expect(messages(validateObjectMeta(meta, clusterScoped))).toEqual([
      'metadata.ownerReferences: Invalid value: [{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs1","uid":"u1","controller":true},{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs2","uid":"u2","controller":true},{"apiVersion":"","kind":"","name":"","uid":""}]: Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/rs1 and ReplicaSet/rs2',
      'metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty',
      'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
      'metadata.ownerReferences.name: Invalid value: "": name must not be empty',
      'metadata.ownerReferences.uid: Invalid value: "": uid must not be empty',
    ]);
    const event = { apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' };
    expect(messages(validateObjectMeta({ name: 'a', ownerReferences: [event] }, clusterScoped))).toEqual([
      'metadata.ownerReferences: Invalid value: {"apiVersion":"v1","kind":"Event","name":"e","uid":"u"}: /v1, Kind=Event is disallowed from being an owner',
    ]);
  });
});

describe('labels and annotations', () => {
  test('label keys and values are checked at the map path', () => {
    const errs = messages(validateLabels({ 'a/b/c': 'ok', good: 'bad value' }, 'metadata.labels'));
    expect(errs).toHaveLength(2);
    expect(errs[0]).toMatch(/^metadata\.labels: Invalid value: "a\/b\/c": a valid label key must consist of/);
    expect(errs[1]).toMatch(/^metadata\.labels: Invalid value: "bad value": a valid label must be an empty string/);
  });

  test('annotation keys are case-insensitive qualified names, and any value is allowed', () => {
    expect(validateAnnotations({ 'Example.COM/Key': 'any value at all\n' }, 'metadata.annotations')).toEqual([]);
  });

  test('annotations may total 256 KiB, counted in bytes', () => {
    expect(validateAnnotations({ a: 'x'.repeat(256 * 1024 - 1) }, 'metadata.annotations')).toEqual([]);
    expect(messages(validateAnnotations({ a: 'x'.repeat(256 * 1024) }, 'metadata.annotations'))).toEqual([
      'metadata.annotations: Too long: may not be more than 262144 bytes',
    ]);
    // "é" is two bytes in UTF-8.
    expect(validateAnnotations({ a: 'é'.repeat(128 * 1024) }, 'metadata.annotations')).toHaveLength(1);
  });
});

describe('validateLabelSelector', () => {
  test('a well-formed selector has no errors', () => {
    expect(
      validateLabelSelector(
        {
          matchLabels: { app: 'web' },
          matchExpressions: [
            { key: 'tier', operator: 'In', values: ['a'] },
            { key: 'x', operator: 'Exists' },
          ],
        },
        'spec.selector',
      ),
    ).toEqual([]);
  });

  test('operators, their values, keys and values are checked per requirement', () => {
    const errs = messages(
      validateLabelSelector(
        {
          matchExpressions: [
            { key: 'a', operator: 'In', values: [] },
            { key: 'b', operator: 'Exists', values: ['x'] },
            { key: 'c', operator: 'Like', values: ['x'] },
            { key: 'bad key!', operator: 'NotIn', values: ['bad value'] },
          ],
        },
        'spec.selector',
      ),
    );
    expect(errs[0]).toBe("spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'");
    expect(errs[1]).toBe("spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    expect(errs[2]).toBe('spec.selector.matchExpressions[2].operator: Invalid value: "Like": not a valid selector operator');
    expect(errs[3]).toMatch(/^spec\.selector\.matchExpressions\[3\]\.key: Invalid value: "bad key!": name part must consist of/);
    expect(errs[4]).toMatch(/^spec\.selector\.matchExpressions\[3\]\.values\[0\]: Invalid value: "bad value": a valid label must be/);
    expect(errs).toHaveLength(5);
  });
});

describe('validateObjectMetaUpdate', () => {
  const prev: ObjectMeta = { name: 'a', namespace: 'ns', uid: 'u1', resourceVersion: '5', generation: 2, creationTimestamp: '2024-01-01T00:00:00Z' };

  test('an unchanged object passes', () => {
    expect(validateObjectMetaUpdate({ ...prev }, prev, true)).toEqual([]);
  });

  test('resourceVersion must be given, generation may not go down', () => {
    expect(messages(validateObjectMetaUpdate({ ...prev, resourceVersion: '', generation: 1 }, prev, true))).toEqual([
      'metadata.resourceVersion: Invalid value: "": must be specified for an update',
      'metadata.generation: Invalid value: 1: must not be decremented',
    ]);
  });

  test('immutable fields', () => {
    expect(messages(validateObjectMetaUpdate({ ...prev, name: 'b', uid: undefined }, prev, true))).toEqual([
      'metadata.name: Invalid value: "b": field is immutable',
      'metadata.uid: Invalid value: "": field is immutable',
    ]);
    expect(messages(validateObjectMetaUpdate({ ...prev, deletionGracePeriodSeconds: 30 }, prev, true))).toEqual([
      'metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable',
    ]);
  });

  test('no new finalizers once deleting', () => {
    const deleting = { ...prev, deletionTimestamp: '2024-01-02T00:00:00Z', finalizers: ['example.com/a'] };
    expect(
      messages(validateObjectMetaUpdate({ ...deleting, finalizers: ['example.com/a', 'example.com/c', 'example.com/b', 'example.com/c'] }, deleting, true)),
    ).toEqual([
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/b", "example.com/c"}',
    ]);
    expect(validateObjectMetaUpdate({ ...deleting, finalizers: [] }, deleting, true)).toEqual([]);
  });

  test('on update only the kube finalizer name check runs', () => {
    expect(messages(validateObjectMetaUpdate({ ...prev, finalizers: ['custom', 'orphan', 'foregroundDeletion'] }, prev, true))).toEqual([
      'metadata.finalizers[0]: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
    ]);
  });
});
