/**
 * Every admission plugin kube-apiserver registers, in the order it runs them
 * (pkg/kubeapiserver/options/plugins.go, AllOrderedPlugins).
 */
export const ALL_ORDERED_PLUGINS = [
  'AlwaysAdmit',
  'NamespaceAutoProvision',
  'NamespaceLifecycle',
  'NamespaceExists',
  'LimitPodHardAntiAffinityTopology',
  'LimitRanger',
  'ServiceAccount',
  'NodeRestriction',
  'TaintNodesByCondition',
  'AlwaysPullImages',
  'ImagePolicyWebhook',
  'PodSecurity',
  'PodNodeSelector',
  'Priority',
  'DefaultTolerationSeconds',
  'PodTolerationRestriction',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'DenyServiceExternalIPs',
  'PodTopologyLabels',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'AlwaysDeny',
] as const;

/** The plugins off unless --enable-admission-plugins names them (DefaultOffAdmissionPlugins' complement). */
const DEFAULT_OFF = new Set<string>([
  'AlwaysAdmit',
  'AlwaysPullImages',
  'LimitPodHardAntiAffinityTopology',
  'DenyServiceExternalIPs',
  'ImagePolicyWebhook',
  'NamespaceAutoProvision',
  'NamespaceExists',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'PodNodeSelector',
  'PodTolerationRestriction',
  'NodeRestriction',
  'OwnerReferencesPermissionEnforcement',
  'AlwaysDeny',
]);

/**
 * kube's plugins kapi does not have: enabling one stops the start rather than letting it do
 * nothing. (AlwaysAdmit does nothing in kube too; ClusterTrustBundleAttest and PodTopologyLabels,
 * default-on, act on an API and a feature gate that are off in 1.34, so they do nothing there either.)
 */
const NOT_IMPLEMENTED = new Set<string>([
  'AlwaysDeny',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'ImagePolicyWebhook',
  'LimitPodHardAntiAffinityTopology',
  'NamespaceAutoProvision',
  'NamespaceExists',
  'OwnerReferencesPermissionEnforcement',
  'PodNodeSelector',
  'PodTolerationRestriction',
]);

/**
 * The plugins that run, in kube's order: the default set plus --enable-admission-plugins, less
 * --disable-admission-plugins; unknown or overlapping names are refused with the messages of
 * k8s.io/apiserver's AdmissionOptions.Validate, and kube's names kapi lacks with its own.
 */
export function enabledAdmissionPlugins(enable: string[], disable: string[]): string[] {
  const known = new Set<string>(ALL_ORDERED_PLUGINS);
  const errors: string[] = [];
  for (const name of enable) {
    if (!known.has(name)) errors.push(`enable-admission-plugins plugin "${name}" is unknown`);
    else if (NOT_IMPLEMENTED.has(name)) errors.push(`enable-admission-plugins plugin "${name}" is not implemented by kapi`);
  }
  for (const name of disable) if (!known.has(name)) errors.push(`disable-admission-plugins plugin "${name}" is unknown`);
  const overlap = [...new Set(enable.filter((name) => disable.includes(name)))].sort();
  if (overlap.length > 0) errors.push(`[${overlap.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`);
  if (errors.length > 0) throw new Error(errors.join(', '));
  return ALL_ORDERED_PLUGINS.filter((name) => !disable.includes(name) && (enable.includes(name) || !DEFAULT_OFF.has(name)));
}
