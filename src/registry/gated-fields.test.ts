import type { KubeObject } from '../api/types';
import { featureGateDefaultsAt, KNOWN_FEATURE_GATES } from '../server/feature-gates';
import { disabledValueErrors, dropDisabledFields } from './gated-fields';

const pod = (spec: Record<string, unknown>, status: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p' },
  spec: { containers: [{ name: 'c', image: 'i' }], ...spec },
  status,
});

describe('dropDisabledFields', () => {
  it('drops an alpha field on create, keeps it with the gate on or when the stored object uses it', () => {
    const created = pod({ schedulingGroup: { podGroupName: 'g' }, hostnameOverride: 'h' });
    dropDisabledFields(KNOWN_FEATURE_GATES, created, null);
    expect(created.spec).not.toHaveProperty('schedulingGroup');
    expect(created.spec).toHaveProperty('hostnameOverride', 'h');

    const on = pod({ schedulingGroup: { podGroupName: 'g' } });
    dropDisabledFields({ ...KNOWN_FEATURE_GATES, GenericWorkload: true }, on, null);
    expect(on.spec).toHaveProperty('schedulingGroup', { podGroupName: 'g' });

    const updated = pod({ schedulingGroup: { podGroupName: 'h' } });
    dropDisabledFields(KNOWN_FEATURE_GATES, updated, pod({ schedulingGroup: { podGroupName: 'g' } }));
    expect(updated.spec).toHaveProperty('schedulingGroup', { podGroupName: 'h' });
  });

  it('follows an emulated minor: 1.34 drops what 1.35 gated on, in templates, lists and status', () => {
    const deployment: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd' },
      spec: {
        template: {
          spec: {
            hostnameOverride: 'h',
            containers: [
              {
                name: 'c',
                env: [
                  { name: 'A', valueFrom: { fileKeyRef: { path: 'p', key: 'k', volumeName: 'v' } } },
                  { name: 'B', value: 'b' },
                ],
              },
            ],
          },
        },
      },
      status: { replicas: 1, terminatingReplicas: 2 },
    };
    dropDisabledFields(featureGateDefaultsAt(34), deployment, null);
    expect(deployment.spec).toEqual({
      template: {
        spec: {
          containers: [
            {
              name: 'c',
              env: [
                { name: 'A', valueFrom: {} },
                { name: 'B', value: 'b' },
              ],
            },
          ],
        },
      },
    });
    expect(deployment.status).toEqual({ replicas: 1 });

    const withStatus = pod({}, { resources: { limits: { cpu: '1' } }, phase: 'Pending' });
    dropDisabledFields(featureGateDefaultsAt(35), withStatus, null);
    expect(withStatus.status).toEqual({ phase: 'Pending' });
  });

  it("drops 1.36's off-by-default pod fields: a stop signal (with a lifecycle it leaves empty) and podCertificate projections", () => {
    const created = pod({
      containers: [
        { name: 'a', lifecycle: { stopSignal: 'SIGUSR1' } },
        {
          name: 'b',
          lifecycle: { stopSignal: 'SIGUSR1', preStop: { sleep: { seconds: 1 } } },
          resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }],
        },
      ],
      volumes: [{ name: 'v', projected: { sources: [{ podCertificate: { signerName: 'x/y', keyType: 'ED25519' } }, { configMap: { name: 'c' } }] } }],
    });
    dropDisabledFields(KNOWN_FEATURE_GATES, created, null);
    expect(created.spec).toEqual({
      containers: [
        { name: 'a' },
        { name: 'b', lifecycle: { preStop: { sleep: { seconds: 1 } } }, resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }] },
      ],
      volumes: [{ name: 'v', projected: { sources: [{}, { configMap: { name: 'c' } }] } }],
    });
    const kept = pod({ containers: [{ name: 'a', lifecycle: { stopSignal: 'SIGTERM' } }] });
    dropDisabledFields(KNOWN_FEATURE_GATES, kept, pod({ containers: [{ name: 'a', lifecycle: { stopSignal: 'SIGUSR1' } }] }));
    expect(kept.spec).toEqual({ containers: [{ name: 'a', lifecycle: { stopSignal: 'SIGTERM' } }] });
  });

  it("drops DRA fields whose gates an emulated release had off, and keeps them at 1.36's defaults", () => {
    const slice = (): KubeObject => ({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceSlice',
      metadata: { name: 's' },
      spec: { driver: 'd', devices: [{ name: 'gpu', taints: [{ key: 'k', effect: 'NoSchedule' }] }] },
    });
    const at36 = slice();
    dropDisabledFields(KNOWN_FEATURE_GATES, at36, null);
    expect(at36.spec).toEqual(slice().spec);
    const at35 = slice();
    dropDisabledFields(featureGateDefaultsAt(35), at35, null);
    expect(at35.spec).toEqual({ driver: 'd', devices: [{ name: 'gpu' }] });

    const template: KubeObject = {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaimTemplate',
      metadata: { name: 't' },
      spec: { spec: { devices: { requests: [{ name: 'r', firstAvailable: [{ name: 's', deviceClassName: 'c' }] }] } } },
    };
    dropDisabledFields(featureGateDefaultsAt(33), template, null);
    expect(template.spec).toEqual({ spec: { devices: { requests: [{ name: 'r' }] } } });

    const partitioned: KubeObject = {
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceSlice',
      metadata: { name: 'p' },
      spec: { driver: 'd', perDeviceNodeSelection: true, devices: [{ name: 'gpu', nodeName: 'n', consumesCounters: [{ counterSet: 'c', counters: {} }] }] },
    };
    dropDisabledFields(featureGateDefaultsAt(35), partitioned, null);
    expect(partitioned.spec).toEqual({ driver: 'd', devices: [{ name: 'gpu' }] });
  });

  it("drops the fields of 1.36's new DRA gates: alpha ones at 1.36, the betas (on in 1.36) at an emulated 1.35, in lists and maps", () => {
    const slice = (): KubeObject => ({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceSlice',
      metadata: { name: 's' },
      spec: {
        driver: 'd',
        devices: [
          {
            name: 'gpu',
            allowMultipleAllocations: true,
            bindsToNode: true,
            bindingConditions: ['ready'],
            capacity: { memory: { value: '8Gi', requestPolicy: { default: '1Gi' } } },
            attributes: { model: { string: 'a100' }, sizes: { ints: [1, 2] } },
            nodeAllocatableResourceMappings: { cpu: {} },
          },
        ],
      },
    });
    const at36 = slice();
    dropDisabledFields(KNOWN_FEATURE_GATES, at36, null);
    const { nodeAllocatableResourceMappings, ...betas } = (slice().spec as { devices: Record<string, unknown>[] }).devices[0];
    expect(nodeAllocatableResourceMappings).toEqual({ cpu: {} });
    expect((at36.spec as { devices: unknown[] }).devices[0]).toEqual({ ...betas, attributes: { model: { string: 'a100' }, sizes: {} } });
    const at35 = slice();
    dropDisabledFields(featureGateDefaultsAt(35), at35, null);
    expect((at35.spec as { devices: unknown[] }).devices[0]).toEqual({
      name: 'gpu',
      capacity: { memory: { value: '8Gi' } },
      attributes: { model: { string: 'a100' }, sizes: {} },
    });

    const claim = (): KubeObject => ({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'ResourceClaim',
      metadata: { name: 'c' },
      spec: { devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'g', capacity: { requests: { memory: '1Gi' } } } }] } },
    });
    const claimAt35 = claim();
    dropDisabledFields(featureGateDefaultsAt(35), claimAt35, null);
    expect(claimAt35.spec).toEqual({ devices: { requests: [{ name: 'r', exactly: { deviceClassName: 'g' } }] } });
    const claimAt36 = claim();
    dropDisabledFields(KNOWN_FEATURE_GATES, claimAt36, null);
    expect(claimAt36.spec).toEqual(claim().spec);

    const deviceClass = (): KubeObject => ({
      apiVersion: 'resource.k8s.io/v1',
      kind: 'DeviceClass',
      metadata: { name: 'g' },
      spec: { extendedResourceName: 'example.com/gpu' },
    });
    const classAt35 = deviceClass();
    dropDisabledFields(featureGateDefaultsAt(35), classAt35, null);
    expect(classAt35.spec).toEqual({});
  });

  it('drops image volumes and the mounts that name them where ImageVolume is off (1.34), unless the stored pod has one', () => {
    const withImage = () =>
      pod({
        volumes: [
          { name: 'img', image: { reference: 'registry/data:1' } },
          { name: 'tmp', emptyDir: {} },
        ],
        containers: [
          {
            name: 'c',
            image: 'i',
            volumeMounts: [
              { name: 'img', mountPath: '/data' },
              { name: 'tmp', mountPath: '/tmp' },
            ],
          },
        ],
        initContainers: [{ name: 'init', image: 'i', volumeMounts: [{ name: 'img', mountPath: '/data' }] }],
      });
    const at36 = withImage();
    dropDisabledFields(KNOWN_FEATURE_GATES, at36, null);
    expect(at36.spec).toEqual(withImage().spec);
    const at34 = withImage();
    dropDisabledFields(featureGateDefaultsAt(34), at34, null);
    expect(at34.spec).toEqual({
      volumes: [{ name: 'tmp', emptyDir: {} }],
      containers: [{ name: 'c', image: 'i', volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }] }],
      initContainers: [{ name: 'init', image: 'i' }],
    });
    const kept = withImage();
    dropDisabledFields(featureGateDefaultsAt(34), kept, withImage());
    expect(kept.spec).toEqual(withImage().spec);
  });

  it('leaves kinds without gated fields and other groups alone', () => {
    const other: KubeObject = { apiVersion: 'example.com/v1', kind: 'Pod', metadata: { name: 'x' }, spec: { schedulingGroup: {} } };
    dropDisabledFields(KNOWN_FEATURE_GATES, other, null);
    expect(other.spec).toEqual({ schedulingGroup: {} });
  });
});

describe('disabledValueErrors', () => {
  const tolerations = [
    { key: 'k', operator: 'Exists' },
    { key: 'sla', operator: 'Gt', value: '950' },
  ];

  it("refuses Lt/Gt tolerations while TaintTolerationComparisonOperators is off, with kube's NotSupported", () => {
    expect(disabledValueErrors(KNOWN_FEATURE_GATES, pod({ tolerations }), null)).toEqual([
      { type: 'FieldValueNotSupported', field: 'spec.tolerations[1].operator', value: 'Gt', detail: 'supported values: "Equal", "Exists"' },
    ]);
    expect(disabledValueErrors({ ...KNOWN_FEATURE_GATES, TaintTolerationComparisonOperators: true }, pod({ tolerations }), null)).toEqual([]);
  });

  it('allows them on update when the stored pod already uses one', () => {
    expect(disabledValueErrors(KNOWN_FEATURE_GATES, pod({ tolerations }), pod({ tolerations: [{ key: 'a', operator: 'Lt', value: '1' }] }))).toEqual([]);
    expect(disabledValueErrors(KNOWN_FEATURE_GATES, pod({ tolerations }), pod({ tolerations: [{ key: 'a', operator: 'Equal' }] }))).toHaveLength(1);
  });
});
