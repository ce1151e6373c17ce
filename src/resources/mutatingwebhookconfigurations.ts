import { webhookConfigurationResource } from './webhook-configuration';

/** admissionregistration.k8s.io/v1 MutatingWebhookConfiguration: webhooks that may change what is written. */
export const mutatingwebhookconfigurations = webhookConfigurationResource('MutatingWebhookConfiguration');
