import type { ObjectStore } from '../registry/types';
import { isStatusError } from '../api/errors';
import { jsonEqual } from '../api/deep-equal';
import { isPlainObject, type KubeObject } from '../api/types';
import { SYSTEM_READ_ALL, systemReadContext, systemContext, SERVER_OWN_WRITE } from '../registry/request-context';
import { ipAt, formatIp, serviceRange } from '../registry/service-allocation/ip-range';
import { nowTimestamp } from '../registry/time';
import type { ControllerLog } from './runtime/informer';
import { PeriodicController } from './runtime/periodic';
import { jsonClone } from '../api/json-clone';

/** kube's DefaultServiceCIDRName and the kubernetes Service's names. */
export const DEFAULT_SERVICE_CIDR = 'kubernetes';
export const KUBERNETES_SERVICE = 'kubernetes';
export const DEFAULT_NAMESPACE = 'default';
/** DefaultEndpointReconcilerInterval: how often the defaults are checked again. */
export const RECONCILE_INTERVAL_MS = 10_000;

const READY_MESSAGE = 'Kubernetes default Service CIDR is ready';

function readyCondition(): Record<string, unknown> {
  return { type: 'Ready', status: 'True', lastTransitionTime: nowTimestamp(), reason: '', message: READY_MESSAGE };
}

/**
 * kube-apiserver's kubernetes-service-cidr-controller (pkg/controlplane/controller/defaultservicecidr),
 * on every replica: the ServiceCIDR `kubernetes` holds --service-cluster-ip-range and is Ready.
 * A ServiceCIDR that holds other ranges is left alone (another replica's configuration), as kube does.
 */
export class DefaultServiceCidrController extends PeriodicController {
  readonly name = 'poststarthook/start-kubernetes-service-cidr-controller';

  constructor(
    private readonly cidrs: ObjectStore,
    private readonly ranges: string[],
    log: ControllerLog,
  ) {
    super(RECONCILE_INTERVAL_MS, log);
  }

  protected async pass(): Promise<void> {
    let current = await this.cidrs.find(SYSTEM_READ_ALL, DEFAULT_SERVICE_CIDR, { resourceVersion: '', match: '' });
    if (!current) {
      try {
        current = await this.cidrs.create(
          systemContext({ namespace: '' }, SERVER_OWN_WRITE),
          { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name: DEFAULT_SERVICE_CIDR }, spec: { cidrs: this.ranges } },
          { dryRun: false },
        );
      } catch (err) {
        if (!(isStatusError(err) && err.code === 409)) throw err;
        current = await this.cidrs.get(SYSTEM_READ_ALL, DEFAULT_SERVICE_CIDR, { resourceVersion: '', match: '' });
      }
    }
    const spec = isPlainObject(current.spec) ? current.spec : {};
    if (JSON.stringify(spec.cidrs) !== JSON.stringify(this.ranges)) {
      this.log(`the default ServiceCIDR holds ${JSON.stringify(spec.cidrs)}, not this server's --service-cluster-ip-range ${this.ranges.join(',')}`);
      return;
    }
    const conditions =
      isPlainObject(current.status) && Array.isArray(current.status.conditions) ? (current.status.conditions as Record<string, unknown>[]) : [];
    const ready = conditions.find((c) => c.type === 'Ready');
    if (ready && ready.status !== 'Unknown') return;
    await this.cidrs.update(
      systemContext({ namespace: '', subresource: 'status' }, SERVER_OWN_WRITE),
      DEFAULT_SERVICE_CIDR,
      (obj) => {
        obj.status = { conditions: [...conditions.filter((c) => c.type !== 'Ready'), readyCondition()] };
        return obj;
      },
      { dryRun: false },
    );
  }
}

/** The kubernetes Service's cluster IP: the first address of the primary range (GetIndexedIP(range, 1)). */
export function kubernetesServiceIp(primaryRange: string): string {
  return formatIp(ipAt(serviceRange(primaryRange)!, 0n));
}

/**
 * kube-apiserver's kubernetes service controller (pkg/controlplane/controller/kubernetesservice),
 * on every replica: `default/kubernetes`, ClusterIP the first address of the range, port 443 to
 * the secure port, created when absent.
 */
export function kubernetesService(clusterIp: string, securePort: number): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: KUBERNETES_SERVICE, namespace: DEFAULT_NAMESPACE, labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: {
      type: 'ClusterIP',
      clusterIP: clusterIp,
      ipFamilyPolicy: 'SingleStack',
      sessionAffinity: 'None',
      ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: securePort }],
    },
  };
}

/**
 * CreateOrUpdateMasterServiceIfNeeded: created when absent; its ports and type put back when they
 * differ from this replica's (getMasterServiceUpdateIfNeeded), the cluster IP never changed.
 */
export async function reconcileKubernetesService(services: ObjectStore, clusterIp: string, securePort: number): Promise<void> {
  const desired = kubernetesService(clusterIp, securePort);
  const current = await services.find(systemReadContext(DEFAULT_NAMESPACE), KUBERNETES_SERVICE, { resourceVersion: '', match: '' });
  if (!current) {
    try {
      await services.create(systemContext({ namespace: DEFAULT_NAMESPACE }, SERVER_OWN_WRITE), desired, { dryRun: false });
    } catch (err) {
      if (!(isStatusError(err) && err.code === 409)) throw err;
    }
    return;
  }
  const spec = isPlainObject(current.spec) ? current.spec : {};
  const want = desired.spec as Record<string, unknown>;
  if (spec.type === want.type && jsonEqual(spec.ports, want.ports)) return;
  const next = jsonClone(current);
  next.spec = { ...spec, type: want.type, ports: want.ports };
  try {
    await services.update(systemContext({ namespace: DEFAULT_NAMESPACE, name: KUBERNETES_SERVICE }, SERVER_OWN_WRITE), KUBERNETES_SERVICE, next, {
      dryRun: false,
    });
  } catch (err) {
    // Another replica changed it meanwhile: the next pass looks again.
    if (!(isStatusError(err) && err.code === 409)) throw err;
  }
}
