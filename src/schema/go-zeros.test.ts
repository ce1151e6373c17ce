import { withGoZerosOfKind, withoutOmittedZerosOfKind } from './go-zeros';

describe('withGoZerosOfKind', () => {
  test("a DaemonSet's status and a container's resources are written as Go writes them", () => {
    const ds = withGoZerosOfKind('apps/v1', 'DaemonSet', {
      metadata: { name: 'd' },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
    } as Record<string, unknown>);
    expect(ds.status).toEqual({ currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 });
    const spec = ds.spec as { template: { spec: { containers: Record<string, unknown>[] } }; updateStrategy: unknown };
    expect(spec.template.spec.containers[0]).toEqual({ name: 'c', image: 'i', resources: {} });
    // DaemonSetUpdateStrategy is a non-pointer struct: always written.
    expect(spec.updateStrategy).toEqual({});
  });

  test('pointers with omitempty stay absent, nil slices without omitempty are null, zero Times are null', () => {
    const role = withGoZerosOfKind('rbac.authorization.k8s.io/v1', 'Role', { metadata: { name: 'r' } } as Record<string, unknown>);
    expect(role).toEqual({ metadata: { name: 'r' }, rules: null });
    const deploy = withGoZerosOfKind('apps/v1', 'Deployment', {
      metadata: {},
      spec: { template: {} },
      status: { conditions: [{ type: 'Available', status: 'True' }] },
    } as Record<string, unknown>);
    expect((deploy.status as { conditions: unknown[] }).conditions[0]).toEqual({
      type: 'Available',
      status: 'True',
      lastUpdateTime: null,
      lastTransitionTime: null,
    });
    const spec = deploy.spec as Record<string, unknown>;
    expect(spec.replicas).toBeUndefined();
    // A pointer without omitempty (DeploymentSpec.selector) is null when nil.
    expect(spec.selector).toBeNull();
    // creationTimestamp is omitzero in v1.34: a template's metadata is {}.
    expect(spec.template).toEqual({ metadata: {}, spec: { containers: null } });
  });

  test('custom resources are left alone', () => {
    const obj = { metadata: {}, spec: {} };
    expect(withGoZerosOfKind('example.com/v1', 'Widget', obj)).toEqual({ metadata: {}, spec: {} });
  });
});

describe('withoutOmittedZeros', () => {
  test("drops what Go's encoder omits after decoding: omitempty zeros, empty omitempty lists and maps; keeps pointers to zero and struct values", () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', labels: {}, finalizers: [] },
      spec: {
        replicas: 0,
        minReadySeconds: 0,
        paused: false,
        selector: { matchLabels: { app: 'd' } },
        template: { metadata: {}, spec: { containers: [{ name: 'c', image: '', ports: [], resources: {}, stdin: false }] } },
      },
    };
    expect(withoutOmittedZerosOfKind('apps/v1', 'Deployment', deployment)).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: { replicas: 0, selector: { matchLabels: { app: 'd' } }, template: { metadata: {}, spec: { containers: [{ name: 'c', resources: {} }] } } },
    });
    const custom = { apiVersion: 'example.com/v1', kind: 'Thing', metadata: { name: 't' }, spec: { n: 0 } };
    expect(withoutOmittedZerosOfKind('example.com/v1', 'Thing', structuredClone(custom))).toEqual(custom);
  });
});
