import type { KubeObject } from '../api/types';
import { everything } from '../storage/interfaces';
import type { ApiServerMetrics } from '../metrics/metrics';
import type { GenericStore } from '../registry/generic-store';
import type { Config } from '../server/config';
import { AdmissionChain, type AdmissionPlugin } from './admission';
import { CertificateApproval } from './certificate-approval';
import { CertificateSigning } from './certificate-signing';
import { CertificateSubjectRestriction } from './certificate-subject-restriction';
import { DefaultIngressClass } from './default-ingress-class';
import { DefaultStorageClass } from './default-storage-class';
import { NamespaceLifecycle } from './namespace-lifecycle';
import { enabledAdmissionPlugins } from './plugin-names';
import { ServiceAccountAdmission } from './service-account';
import { RuntimeClassAdmission } from './runtime-class';
import { StorageObjectInUseProtection } from './storage-object-in-use-protection';
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

/** Every object of a cluster-scoped kind, from the watch cache (as kube's plugins read their listers). */
const cachedList = (store: GenericStore) => async (): Promise<KubeObject[]> => (await store.list('', { resourceVersion: '0', match: '', predicate: everything })).items;

/** The plugins kapi implements, by kube's names (pkg/kubeapiserver/options/plugins.go). */
function implementedPlugins(storeOf: StoreOf, metrics: ApiServerMetrics | null): Record<string, AdmissionPlugin> {
  const namespaces = storeOf('', 'v1', 'namespaces');
  const serviceAccounts = storeOf('', 'v1', 'serviceaccounts');
  const runtimeClasses = storeOf('node.k8s.io', 'v1', 'runtimeclasses');
  const webhooks = new WebhookAdmission(registryWebhookSource(storeOf), {
    observe: (...args) => metrics?.observeWebhook(...args),
    rejection: (...args) => metrics?.webhookRejection(...args),
  });
  return {
    NamespaceLifecycle: new NamespaceLifecycle({ get: (name, live) => lookup(namespaces, '', name, live) }),
    ServiceAccount: new ServiceAccountAdmission({ get: (namespace, name, live) => lookup(serviceAccounts, namespace, name, live) }),
    DefaultStorageClass: new DefaultStorageClass(cachedList(storeOf('storage.k8s.io', 'v1', 'storageclasses'))),
    StorageObjectInUseProtection: new StorageObjectInUseProtection(),
    RuntimeClass: new RuntimeClassAdmission((name, live) => lookup(runtimeClasses, '', name, live)),
    CertificateApproval: new CertificateApproval(),
    CertificateSigning: new CertificateSigning(),
    CertificateSubjectRestriction: new CertificateSubjectRestriction(),
    DefaultIngressClass: new DefaultIngressClass(cachedList(storeOf('networking.k8s.io', 'v1', 'ingressclasses'))),
    MutatingAdmissionWebhook: { name: 'MutatingAdmissionWebhook', admit: (attrs) => webhooks.admit(attrs) },
    ValidatingAdmissionWebhook: { name: 'ValidatingAdmissionWebhook', validate: (attrs) => webhooks.validate(attrs) },
  };
}

/** The admission chain: the enabled plugins in kube's order; enabled plugins kapi does not implement run as nothing (docs/divergences.md). */
export function buildAdmission(config: Pick<Config, 'enableAdmissionPlugins' | 'disableAdmissionPlugins'>, storeOf: StoreOf, metrics: ApiServerMetrics | null): AdmissionChain {
  const plugins = implementedPlugins(storeOf, metrics);
  return new AdmissionChain(enabledAdmissionPlugins(config.enableAdmissionPlugins, config.disableAdmissionPlugins).flatMap((name) => plugins[name] ?? []));
}
