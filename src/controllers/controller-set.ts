import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { PemPair } from '../auth/certificates';
import { PolicyTypeCheckingController, registrySchemaOf } from '../admission/policy/type-checking-controller';
import { ApiServerIdentity } from './apiserver-identity';
import { ClusterRoleAggregationController } from './clusterrole-aggregation';
import { CrdController, type ServeResource } from './crd-controller';
import { CrdEstablishingController } from './crd-establishing-controller';
import { CsrSigningController } from './csr-signer';
import { CronJobController } from './batch/cronjob-controller';
import { JobController } from './batch/job-controller';
import { DeploymentController } from './apps/deployment-controller';
import { ReplicaSetController } from './apps/replica-set-controller';
import { REPLICA_SET_KIND, REPLICATION_CONTROLLER_KIND } from './apps/replicated-kind';
import { DisruptionController } from './disruption-controller';
import { EndpointsController } from './discovery/endpoints-controller';
import { EndpointSliceController } from './discovery/endpointslice-controller';
import { EndpointSliceMirroringController } from './discovery/endpointslice-mirroring-controller';
import { PersistentVolumeBinderController } from './volume/persistentvolume-binder-controller';
import { FlowControlController } from './flowcontrol-controller';
import { GarbageCollector } from './garbage-collector';
import { NamespaceController } from './namespace-controller';
import { PvProtectionController } from './pv-protection-controller';
import { PvcProtectionController } from './pvc-protection-controller';
import { ResourceQuotaController } from './resource-quota-controller';
import { RootCaPublisher } from './root-ca-publisher';
import { ControllerManager } from './runtime/controller-manager';
import { LeaderElector } from './runtime/leader-election';
import { LeaseLock } from './runtime/lease-lock';
import type { SharedInformers } from './runtime/shared-informers';
import { ServiceAccountController } from './service-account-controller';
import { Scheduler } from '../scheduler/scheduler';
import type { ApiServerMetrics } from '../metrics/metrics';
import type { ServiceAllocation } from '../registry/service-allocation/build';
import type { Storage } from '../storage/interfaces';
import { ServiceRepairControllers } from './ip-repair-controllers';
import { DefaultServiceCidrController, kubernetesServiceIp } from './kubernetes-service';
import { DeferredController, KubernetesEndpointsReconciler, effectiveAdvertiseAddress } from './kubernetes-service-endpoints';
import type { GenericStore } from '../registry/generic-store';
import type { ResourceRegistry } from '../registry/resource-registry';
import { CRD_GROUP } from '../resources/customresourcedefinitions';
import { webhookConverter } from '../resources/crd-conversion-webhook';
import { resolveService } from '../admission/webhooks/registry-source';
import type { Config } from '../server/config';
import { kapiGitVersion } from '../server/kubernetes-version';
import { NodeLifecycleController } from './nodes/node-lifecycle-controller';
import { TaintEvictionController } from './nodes/taint-eviction-controller';
import { SimulatedKubelets } from '../nodes/simulated-kubelets';
import { simulatedNodes } from '../nodes/simulated-node';
import type { Logger } from '../server/logger';
import type { RequestAuthorizer } from '../auth/authorizer/attributes';
import type { WriteAdmission } from '../registry/types';
import type { Clock } from './runtime/clock';
import { controllerDeps, type AggregatedApis } from './runtime/controller-deps';
import { HorizontalPodAutoscalerController } from './autoscaling/hpa-controller';
import { PodGcController } from './podgc/pod-gc-controller';
import { TtlAfterFinishedController } from './ttl-after-finished/ttl-after-finished-controller';
import { StatefulSetController } from './apps/statefulset-controller';
import { DaemonSetController } from './apps/daemonset-controller';

/** The lease kapi's leader-only controllers run under, as kube-controller-manager's in kube-system. */
export const CONTROLLER_MANAGER_LEASE = 'kapi-controller-manager';

/**
 * The in-process controllers: every replica serves CRDs and keeps its identity lease; the lease
 * holder (every replica with --leader-elect=false) runs the namespace controller, the garbage
 * collector and the CRD status controller.
 */
/**
 * What the controllers need beyond the stores: for the service controllers the allocators, raw
 * storage and the secure port once it listens; for those that write through the API as kube's
 * controllers do, the server's admission chain and authorizer.
 */
export interface ControllerInputs {
  allocation: ServiceAllocation;
  storage: Storage;
  securePort: Promise<number>;
  admission: WriteAdmission;
  authorizer: RequestAuthorizer;
  clock: Clock;
  aggregated: AggregatedApis;
  /** The process's shared informers, which caches outside the controllers (the node authorizer's graph) read too. */
  informers: SharedInformers;
}

export function startControllers(
  config: Config,
  registry: ResourceRegistry,
  serveCustomResource: ServeResource,
  metrics: ApiServerMetrics,
  rootCa: string,
  clientSigner: PemPair | null,
  log: Logger,
  serviceInputs: ControllerInputs,
) {
  const storeOfVersion = (group: string, version: string, resource: string): GenericStore => registry.lookup(group, version, resource) as GenericStore;
  const storeOf = (group: string, resource: string): GenericStore => storeOfVersion(group, 'v1', resource);
  const leases = storeOf('coordination.k8s.io', 'leases');
  const crds = storeOf(CRD_GROUP, 'customresourcedefinitions');
  const deps = controllerDeps(
    registry,
    serviceInputs.admission,
    serviceInputs.authorizer,
    serviceInputs.clock,
    log,
    serviceInputs.aggregated,
    serviceInputs.informers,
  );
  const { informers } = deps;
  const garbageCollector = new GarbageCollector(registry, informers, log);
  // An ephemeral port says nothing about who this is: such a replica gets a name of its own.
  const identity = new ApiServerIdentity(leases, config.securePort === 0 ? randomUUID() : `${config.bindAddress}:${config.securePort}`, log);
  const crdController = new CrdController(
    crds,
    registry,
    serveCustomResource,
    (served, serving) => (serving ? garbageCollector.track(served[0]) : garbageCollector.untrack(served[0])),
    (served) => identity.setServed(served),
    (conversion) => webhookConverter(conversion, (namespace, name, port) => resolveService(storeOfVersion, namespace, name, port)),
    informers,
    log,
  );
  const manager = new ControllerManager(log, config.controllers, informers);
  manager.add(crdController, { leaderOnly: false });
  manager.add(identity, { leaderOnly: false });
  // Service allocation (every replica: the default ServiceCIDR, then default/kubernetes and its endpoints; the leader: repair).
  const { allocation } = serviceInputs;
  manager.add(new DefaultServiceCidrController(storeOf('networking.k8s.io', 'servicecidrs'), config.serviceClusterIpRange, log), { leaderOnly: false });
  let endpointsReconciler: KubernetesEndpointsReconciler | null = null;
  const reconciler = serviceInputs.securePort.then(
    (port) =>
      (endpointsReconciler = new KubernetesEndpointsReconciler(
        serviceInputs.storage,
        `${config.etcdPrefix.replace(/\/$/, '')}/masterleases/`,
        storeOf('', 'services'),
        storeOf('', 'endpoints'),
        storeOf('discovery.k8s.io', 'endpointslices'),
        effectiveAdvertiseAddress(config.advertiseAddress, config.bindAddress),
        kubernetesServiceIp(config.serviceClusterIpRange[0]),
        port,
        log,
      )),
  );
  manager.add(new DeferredController('poststarthook/bootstrap-controller', reconciler, log), { leaderOnly: false });
  manager.add(
    new ServiceRepairControllers(storeOf('', 'services'), storeOf('networking.k8s.io', 'ipaddresses'), allocation, config.serviceRepairIntervalMs, log),
    { leaderOnly: true },
  );
  manager.add(new NamespaceController(registry, storeOf('', 'namespaces'), informers, log), { leaderOnly: true });
  manager.add(garbageCollector, { leaderOnly: true });
  manager.add(new CrdEstablishingController(crds, leases, crdController, identity.leaseName, informers, log), { leaderOnly: true });
  manager.add(new ClusterRoleAggregationController(storeOf('rbac.authorization.k8s.io', 'clusterroles'), informers, log), { leaderOnly: true });
  manager.add(new ServiceAccountController(storeOf('', 'namespaces'), storeOf('', 'serviceaccounts'), informers, log), { leaderOnly: true });
  manager.add(
    new PolicyTypeCheckingController(storeOf('admissionregistration.k8s.io', 'validatingadmissionpolicies'), registrySchemaOf(registry), informers, log),
    {
      leaderOnly: true,
    },
  );
  manager.add(new RootCaPublisher(storeOf('', 'namespaces'), storeOf('', 'configmaps'), rootCa, informers, log), { leaderOnly: true });
  manager.add(new PvcProtectionController(storeOf('', 'persistentvolumeclaims'), storeOf('', 'pods'), informers, log), { leaderOnly: true });
  manager.add(new PvProtectionController(storeOf('', 'persistentvolumes'), informers, log), { leaderOnly: true });
  manager.add(
    new ResourceQuotaController(
      storeOf('', 'resourcequotas'),
      (group, resource) => registry.stored().find((s) => s.def.group === group && s.def.resource === resource),
      config.resourceQuotaSyncPeriodMs,
      informers,
      log,
    ),
    { leaderOnly: true },
  );
  // kube-controller-manager's workload controllers (issue 22).
  manager.add(new DeploymentController(deps, config.featureGates), { leaderOnly: true });
  manager.add(new ReplicaSetController(deps, REPLICA_SET_KIND, config.featureGates), { leaderOnly: true });
  manager.add(new ReplicaSetController(deps, REPLICATION_CONTROLLER_KIND, config.featureGates), { leaderOnly: true });
  manager.add(new StatefulSetController(deps, config.featureGates), { leaderOnly: true });
  manager.add(new DaemonSetController(deps), { leaderOnly: true });
  manager.add(new JobController(deps), { leaderOnly: true });
  manager.add(new CronJobController(deps), { leaderOnly: true });
  manager.add(
    new HorizontalPodAutoscalerController(deps, {
      syncPeriodMs: config.hpaSyncPeriodMs,
      downscaleStabilizationMs: config.hpaDownscaleStabilizationMs,
      tolerance: config.hpaTolerance,
      cpuInitializationPeriodMs: config.hpaCpuInitializationPeriodMs,
      initialReadinessDelayMs: config.hpaInitialReadinessDelayMs,
    }),
    { leaderOnly: true },
  );
  // Endpoints, endpoint slices and their mirroring, the PV binder.
  manager.add(new EndpointsController(deps), { leaderOnly: true });
  manager.add(new EndpointSliceController(deps), { leaderOnly: true });
  manager.add(new EndpointSliceMirroringController(deps), { leaderOnly: true });
  manager.add(new PersistentVolumeBinderController(deps), { leaderOnly: true });
  manager.add(new DisruptionController(registry, storeOf('policy', 'poddisruptionbudgets'), storeOf('', 'pods'), informers, log), { leaderOnly: true });
  manager.add(
    new FlowControlController(
      storeOf('flowcontrol.apiserver.k8s.io', 'flowschemas'),
      storeOf('flowcontrol.apiserver.k8s.io', 'prioritylevelconfigurations'),
      informers,
      log,
    ),
    { leaderOnly: true },
  );
  // Pod and Job clean-up (kube-controller-manager's podgc and ttl-after-finished).
  manager.add(
    new PodGcController(deps, {
      terminatedPodThreshold: config.terminatedPodGcThreshold,
      periodMs: config.podGcPeriodMs,
      quarantineMs: config.podGcQuarantineMs,
    }),
    { leaderOnly: true },
  );
  manager.add(new TtlAfterFinishedController(deps), { leaderOnly: true });
  // Node lifecycle, and the kubelets of --simulated-nodes (issue 22).
  manager.add(new NodeLifecycleController(deps, config.nodeMonitorPeriodMs, config.nodeMonitorGracePeriodMs), { leaderOnly: true });
  manager.add(new TaintEvictionController(deps), { leaderOnly: true });
  if (config.simulatedNodes > 0) {
    const nodes = simulatedNodes(config.simulatedNodes, config.clusterCidr);
    manager.add(new SimulatedKubelets(deps, nodes, config.simulatedNodeCapacity, kapiGitVersion(), config.simulatedRunDurationMs), { leaderOnly: true });
  }
  // kube-scheduler, under the controller manager's lease rather than a kube-system/kube-scheduler one of its own.
  if (config.scheduler ?? config.simulatedNodes > 0) manager.add(new Scheduler(deps), { leaderOnly: true });
  // Only a CA kapi generated signs CSRs: with --client-ca-file, the CA's key is not ours.
  if (clientSigner)
    manager.add(new CsrSigningController(storeOf('certificates.k8s.io', 'certificatesigningrequests'), clientSigner, informers, log), { leaderOnly: true });
  const elector = config.leaderElect
    ? new LeaderElector(
        new LeaseLock(leases, 'kube-system', CONTROLLER_MANAGER_LEASE),
        {
          leaseDurationMs: config.leaderElectLeaseDurationMs,
          renewDeadlineMs: config.leaderElectRenewDeadlineMs,
          retryPeriodMs: config.leaderElectRetryPeriodMs,
          identity: `${hostname()}_${randomUUID()}`,
        },
        manager.leadership,
        log,
        LeaderElector.statusGauge(metrics.registry),
      )
    : null;
  return {
    manager,
    elector,
    deps,
    /** Stops every controller, releases the leader lease, deletes this replica's identity lease and takes it out of the kubernetes endpoints. */
    stop: async (): Promise<void> => {
      await manager.stop();
      const removals = [
        identity.remove(),
        endpointsReconciler?.remove().catch((err: unknown) => log('could not remove this replica from the kubernetes endpoints', err)),
      ];
      let giveUp: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all(removals), new Promise((r) => (giveUp = setTimeout(r, 5000)).unref())]);
      clearTimeout(giveUp);
    },
  };
}
