import type { KubeObject } from '../api/types';
import { internalContext } from '../registry/request-context';
import { everything } from '../storage/interfaces';
import type { ApiServerMetrics } from '../metrics/metrics';
import type { GenericStore } from '../registry/generic-store';
import type { Config } from '../server/config';
import { AdmissionChain, type AdmissionPlugin } from './admission';
import { LimitRanger } from './limit-ranger';
import { NamespaceLifecycle } from './namespace-lifecycle';
import { enabledAdmissionPlugins } from './plugin-names';
import { ResourceQuotaAdmission } from './resource-quota/quota-admission';
import { ServiceAccountAdmission } from './service-account';
import { registryWebhookSource } from './webhooks/registry-source';
import { WebhookAdmission } from './webhooks/webhook-admission';

export type StoreOf = (group: string, version: string, resource: string) => GenericStore;

/** Looks an object up from the watch cache first (unless asked to be live); one created a moment ago may only be in etcd yet. */
export async function lookup(store: GenericStore, namespace: string, name: string, live: boolean): Promise<KubeObject | null> {
  if (!live) {
    const cached = await store.find(namespace, name, { resourceVersion: '0', match: '' });
    if (cached) return cached;
  }
  return store.find(namespace, name, { resourceVersion: '', match: '' });
}

/** A namespace's objects of a store: from the watch cache, or from etcd when `live`. */
function namespaceList(store: GenericStore): (namespace: string, live: boolean) => Promise<KubeObject[]> {
  return async (namespace, live) => (await store.list(namespace, { resourceVersion: live ? '' : '0', match: '', predicate: everything })).items;
}

/** The plugins kapi implements, by kube's names (pkg/kubeapiserver/options/plugins.go). */
function implementedPlugins(storeOf: StoreOf, metrics: ApiServerMetrics | null): Record<string, AdmissionPlugin> {
  const namespaces = storeOf('', 'v1', 'namespaces');
  const serviceAccounts = storeOf('', 'v1', 'serviceaccounts');
  const quotas = storeOf('', 'v1', 'resourcequotas');
  const webhooks = new WebhookAdmission(registryWebhookSource(storeOf), {
    observe: (...args) => metrics?.observeWebhook(...args),
    rejection: (...args) => metrics?.webhookRejection(...args),
  });
  return {
    NamespaceLifecycle: new NamespaceLifecycle({ get: (name, live) => lookup(namespaces, '', name, live) }),
    LimitRanger: new LimitRanger(namespaceList(storeOf('', 'v1', 'limitranges'))),
    ResourceQuota: new ResourceQuotaAdmission({
      list: namespaceList(quotas),
      // The status write the quota evaluator makes: guarded by the resourceVersion it read.
      updateStatus: async (quota) =>
        (await quotas.update(internalContext({ namespace: quota.metadata.namespace!, resource: 'resourcequotas', subresource: 'status', verb: 'update' }), quota.metadata.name!, quota, { dryRun: false }))
          .object,
    }),
    ServiceAccount: new ServiceAccountAdmission({ get: (namespace, name, live) => lookup(serviceAccounts, namespace, name, live) }),
    MutatingAdmissionWebhook: { name: 'MutatingAdmissionWebhook', admit: (attrs) => webhooks.admit(attrs) },
    ValidatingAdmissionWebhook: { name: 'ValidatingAdmissionWebhook', validate: (attrs) => webhooks.validate(attrs) },
  };
}

/** The admission chain: the enabled plugins in kube's order; enabled plugins kapi does not implement run as nothing (docs/divergences.md). */
export function buildAdmission(config: Pick<Config, 'enableAdmissionPlugins' | 'disableAdmissionPlugins'>, storeOf: StoreOf, metrics: ApiServerMetrics | null): AdmissionChain {
  const plugins = implementedPlugins(storeOf, metrics);
  return new AdmissionChain(enabledAdmissionPlugins(config.enableAdmissionPlugins, config.disableAdmissionPlugins).flatMap((name) => plugins[name] ?? []));
}
