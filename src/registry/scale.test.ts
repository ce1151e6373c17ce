import { StatusError } from '../api/errors';
import type { KubeObject } from '../api/types';
import { deployments } from '../resources/deployments';
import { daemonsets } from '../resources/daemonsets';
import { scaleView } from './scale';
import { subresourceView } from './subresources';

const view = scaleView(deployments);

const stored = (): KubeObject => ({
  kind: 'Deployment',
  apiVersion: 'apps/v1',
  metadata: {
    name: 'web',
    namespace: 'default',
    uid: 'u-1',
    resourceVersion: '7',
    generation: 2,
    creationTimestamp: '2026-01-01T00:00:00Z',
    labels: { a: 'b' },
  },
  spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template: {} },
  status: { replicas: 2, readyReplicas: 1 },
});

function thrown(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
  throw new Error('nothing thrown');
}

test('only kinds declaring scale have the view', () => {
  expect(subresourceView(deployments, 'scale')?.kind).toMatchObject({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
  expect(subresourceView(deployments, 'status')).toBeNull();
  expect(() => subresourceView(daemonsets, 'scale')).toThrow('daemonsets has no scale facts (ResourceDefinition.scale)');
});

test('read: the metadata scaleFromDeployment copies, replicas and the selector string, in Go field order', () => {
  expect(JSON.stringify(view.read(stored()))).toBe(
    JSON.stringify({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: 'web', namespace: 'default', uid: 'u-1', resourceVersion: '7', creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: { replicas: 3 },
      status: { replicas: 2, selector: 'app=web' },
    }),
  );
  const empty = stored();
  empty.spec = { replicas: 0, selector: {} };
  empty.status = {};
  expect(view.read(empty)).toMatchObject({ spec: {}, status: { replicas: 0 } });
  expect(view.read(empty).status).toEqual({ replicas: 0 });
});

test('write: only spec.replicas and the resourceVersion come from the Scale; the namespace is filled in', () => {
  const scale = {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: 'web', resourceVersion: '6', labels: { x: 'y' } },
    spec: { replicas: 5 },
    status: { replicas: 9 },
  };
  const next = view.write(scale, stored());
  expect(next).toEqual({ ...stored(), metadata: { ...stored().metadata, resourceVersion: '6' }, spec: { ...(stored().spec as object), replicas: 5 } });
  expect(scale.metadata).toMatchObject({ namespace: 'default' });
  const zero = view.write({ metadata: { name: 'web' } }, stored());
  expect(zero.spec).toMatchObject({ replicas: 0 });
  expect(zero.metadata.resourceVersion).toBeUndefined();
});

test('write refuses negative replicas (422), another uid (409) and another namespace (400)', () => {
  expect(thrown(() => view.write({ metadata: { name: 'web' }, spec: { replicas: -2 } }, stored())).status).toMatchObject({
    code: 422,
    message: 'Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -2: must be greater than or equal to 0',
  });
  expect(thrown(() => view.write({ metadata: { name: 'web', uid: 'u-2' }, spec: { replicas: 1 } }, stored())).status).toMatchObject({
    code: 409,
    message: 'Operation cannot be fulfilled on deployments/scale.apps "web": Precondition failed: UID in precondition: u-2, UID in object meta: u-1',
  });
  expect(thrown(() => view.write({ metadata: { name: 'web', namespace: 'other' } }, stored())).status).toMatchObject({ code: 400 });
});

test('configuration: an apply configuration of the Scale as one of the parent kind, replicas only when given', () => {
  expect(
    view.configuration({
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      metadata: { name: 'web', namespace: 'default' },
      spec: { replicas: 4 },
      status: { replicas: 1 },
    }),
  ).toEqual({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
    spec: { replicas: 4 },
  });
  expect(view.configuration({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web', namespace: 'default' } })).toEqual({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default' },
  });
});
