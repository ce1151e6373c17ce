import type { MaybePromise } from '../api/maybe-promise';
import type { KubeObject } from '../api/types';
import { systemReadContext, systemContext, SERVER_OWN_WRITE } from '../registry/request-context';
import { everything } from '../storage/interfaces';
import type { ApiServerMetrics } from '../metrics/metrics';
import type { GenericStore } from '../registry/generic-store';
import type { ResourceRegistry } from '../registry/resource-registry';
import type { Config } from '../server/config';
import { AdmissionChain, type AdmissionPlugin } from './admission';
import { AlwaysPullImages } from './always-pull-images';
import { DefaultTolerationSeconds } from './default-toleration-seconds';
import { DenyServiceExternalIPs } from './deny-service-external-ips';
import { NodeRestriction } from './node-restriction';
import { CertificateApproval } from './certificate-approval';
import { CertificateSigning } from './certificate-signing';
import { CertificateSubjectRestriction } from './certificate-subject-restriction';
import { DefaultIngressClass } from './default-ingress-class';
import { DefaultStorageClass } from './default-storage-class';
import { NamespaceLifecycle } from './namespace-lifecycle';
import { enabledAdmissionPlugins } from './plugin-names';
import { PodSecurityAdmission } from './pod-security/pod-security';
import { PriorityAdmission } from './priority';
import { LimitRanger } from './limit-ranger';
import { ResourceQuotaAdmission } from './resource-quota/quota-admission';
import { ServiceAccountAdmission } from './service-account';
import type { AuthorizeFn } from './policy/authorizer-library';
import { MutatingAdmissionPolicy } from './policy/mutating-admission-policy';
import { MUTATING_POLICIES, registryPolicySource } from './policy/policy-source';
import { ValidatingAdmissionPolicy } from './policy/validating-admission-policy';
import { registryEquivalents } from './webhooks/equivalents';
import { RuntimeClassAdmission } from './runtime-class';
import { StorageObjectInUseProtection } from './storage-object-in-use-protection';
import { PersistentVolumeClaimResize } from './persistent-volume-claim-resize';
import { TaintNodesByCondition } from './taint-nodes-by-condition';
import { registryWebhookSource } from './webhooks/registry-source';
import { WebhookAdmission } from './webhooks/webhook-admission';

/** What policies and webhooks' CEL need of the server: every served resource (params, equivalent versions) and the authorizer. */
export interface AdmissionCluster {
  registry: ResourceRegistry;
  authorize: AuthorizeFn;
}

export type StoreOf = (group: string, version: string, resource: string) => GenericStore;

/**
 * Looks an object up from the watch cache first (unless asked to be live), at once where the cache
 * can answer; one created a moment ago may only be in etcd yet.
 */
export function lookup(store: GenericStore, namespace: string, name: string, live: boolean): MaybePromise<KubeObject | null> {
  if (!live) {
    const now = store.cachedNow(namespace, name);
    if (now) return now;
    if (now === undefined) return lookupThroughCache(store, namespace, name);
  }
  return store.find(systemReadContext(namespace), name, { resourceVersion: '', match: '' });
}

async function lookupThroughCache(store: GenericStore, namespace: string, name: string): Promise<KubeObject | null> {
  return (await store.find(systemReadContext(namespace), name, { resourceVersion: '0', match: '' })) ?? lookup(store, namespace, name, true);
}

/** A namespace's objects of a store (every one with ''): from the watch cache, as kube's plugins read their listers, or from etcd when `live`. */
function listCached(store: GenericStore, namespace: string, live = false): MaybePromise<KubeObject[]> {
  return (!live && store.cachedUnderNow(namespace)) || listThrough(store, namespace, live);
}

async function listThrough(store: GenericStore, namespace: string, live: boolean): Promise<KubeObject[]> {
  return (await store.list(systemReadContext(namespace), { resourceVersion: live ? '' : '0', match: '', predicate: everything })).items;
}

type PluginConfig = Pick<
  Config,
  'enableAdmissionPlugins' | 'disableAdmissionPlugins' | 'defaultNotReadyTolerationSeconds' | 'defaultUnreachableTolerationSeconds'
>;

/** The plugins kapi implements, by kube's names (pkg/kubeapiserver/options/plugins.go). */
function implementedPlugins(
  config: PluginConfig,
  storeOf: StoreOf,
  metrics: ApiServerMetrics | null,
  cluster: AdmissionCluster,
): Record<string, AdmissionPlugin> {
  const namespaces = storeOf('', 'v1', 'namespaces');
  const serviceAccounts = storeOf('', 'v1', 'serviceaccounts');
  const pods = storeOf('', 'v1', 'pods');
  const priorityClasses = storeOf('scheduling.k8s.io', 'v1', 'priorityclasses');
  const runtimeClasses = storeOf('node.k8s.io', 'v1', 'runtimeclasses');
  const quotas = storeOf('', 'v1', 'resourcequotas');
  const limitRanges = storeOf('', 'v1', 'limitranges');
  const equivalents = registryEquivalents(cluster.registry);
  const webhooks = new WebhookAdmission(registryWebhookSource(storeOf, equivalents, cluster.authorize), {
    observe: (...args) => metrics?.observeWebhook(...args),
    rejection: (...args) => metrics?.webhookRejection(...args),
  });
  return {
    NamespaceLifecycle: new NamespaceLifecycle({ get: (name, live) => lookup(namespaces, '', name, live) }),
    LimitRanger: new LimitRanger((namespace, live) => listCached(limitRanges, namespace, live)),
    ResourceQuota: new ResourceQuotaAdmission({
      list: (namespace, live) => listCached(quotas, namespace, live),
      // The status write the quota evaluator makes: guarded by the resourceVersion it read.
      updateStatus: async (quota) =>
        (
          await quotas.update(
            systemContext({ namespace: quota.metadata.namespace!, resource: 'resourcequotas', subresource: 'status', verb: 'update' }, SERVER_OWN_WRITE),
            quota.metadata.name!,
            quota,
            { dryRun: false },
          )
        ).object,
    }),
    ServiceAccount: new ServiceAccountAdmission({ get: (namespace, name, live) => lookup(serviceAccounts, namespace, name, live) }),
    PodSecurity: new PodSecurityAdmission({ namespace: (name) => lookup(namespaces, '', name, false), pods: (namespace) => listCached(pods, namespace) }),
    Priority: new PriorityAdmission({ get: (name) => lookup(priorityClasses, '', name, false), list: () => listCached(priorityClasses, '') }),
    DefaultTolerationSeconds: new DefaultTolerationSeconds({
      notReady: config.defaultNotReadyTolerationSeconds,
      unreachable: config.defaultUnreachableTolerationSeconds,
    }),
    DefaultStorageClass: new DefaultStorageClass(() => listCached(storeOf('storage.k8s.io', 'v1', 'storageclasses'), '')),
    StorageObjectInUseProtection: new StorageObjectInUseProtection(),
    TaintNodesByCondition: new TaintNodesByCondition(),
    NodeRestriction: new NodeRestriction({
      pod: (namespace, name) => lookup(pods, namespace, name, false),
      node: (name) => lookup(storeOf('', 'v1', 'nodes'), '', name, false),
    }),
    AlwaysPullImages: new AlwaysPullImages(),
    DenyServiceExternalIPs: new DenyServiceExternalIPs(),
    PersistentVolumeClaimResize: new PersistentVolumeClaimResize((name) => lookup(storeOf('storage.k8s.io', 'v1', 'storageclasses'), '', name, false)),
    RuntimeClass: new RuntimeClassAdmission((name, live) => lookup(runtimeClasses, '', name, live)),
    CertificateApproval: new CertificateApproval(),
    CertificateSigning: new CertificateSigning(),
    CertificateSubjectRestriction: new CertificateSubjectRestriction(),
    DefaultIngressClass: new DefaultIngressClass(() => listCached(storeOf('networking.k8s.io', 'v1', 'ingressclasses'), '')),
    MutatingAdmissionPolicy: new MutatingAdmissionPolicy(registryPolicySource(cluster.registry, equivalents, cluster.authorize, MUTATING_POLICIES)),
    MutatingAdmissionWebhook: { name: 'MutatingAdmissionWebhook', admit: (attrs, reinvocation) => webhooks.admit(attrs, reinvocation) },
    ValidatingAdmissionPolicy: new ValidatingAdmissionPolicy(registryPolicySource(cluster.registry, equivalents, cluster.authorize)),
    ValidatingAdmissionWebhook: { name: 'ValidatingAdmissionWebhook', validate: (attrs) => webhooks.validate(attrs) },
  };
}

/** The admission chain: the enabled plugins in kube's order (the inert ones of plugin-names.ts have no module). */
export function buildAdmission(config: PluginConfig, storeOf: StoreOf, metrics: ApiServerMetrics | null, cluster: AdmissionCluster): AdmissionChain {
  const plugins = implementedPlugins(config, storeOf, metrics, cluster);
  return new AdmissionChain(enabledAdmissionPlugins(config.enableAdmissionPlugins, config.disableAdmissionPlugins).flatMap((name) => plugins[name] ?? []));
}
