import { webhookConfigurationResource } from './webhook-configuration';

/** admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration: webhooks that may refuse a write. */
export const validatingwebhookconfigurations = webhookConfigurationResource('ValidatingWebhookConfiguration');
