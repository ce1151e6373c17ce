import type { AdmissionAttributes } from './admission';

const ADMISSION_CONFIGURATION = new Set([
  'mutatingwebhookconfigurations',
  'validatingwebhookconfigurations',
  'validatingadmissionpolicies',
  'validatingadmissionpolicybindings',
  'mutatingadmissionpolicies',
  'mutatingadmissionpolicybindings',
]);

/**
 * Writes of admission's own configuration never go to webhooks or policies, so that a broken one
 * cannot lock itself in (k8s.io/apiserver's IsExemptAdmissionConfigurationResource).
 */
export function isExemptAdmissionConfiguration(attrs: Pick<AdmissionAttributes, 'def'>): boolean {
  return attrs.def.group === 'admissionregistration.k8s.io' && ADMISSION_CONFIGURATION.has(attrs.def.resource);
}
