import type { KubeObject } from '../../api/types';
import type { AdmissionAttributes } from '../admission';
import { admissionRequest, presentedAsItself, type PresentedAs } from '../webhooks/review';
import { authorizerValue, requestResourceValue } from './authorizer-values';
import { toCel } from './cel';

/**
 * The CEL variables of an admission request (cel.OptionalVariableBindings and the activation of
 * k8s.io/apiserver's admission CEL filter): `object` and `oldObject` (null where the operation has
 * none), `request`, and `authorizer` with `authorizer.requestResource`.
 */
export function requestVariables(attrs: AdmissionAttributes, as: PresentedAs = presentedAsItself(attrs)): Record<string, unknown> {
  const request = admissionRequest(attrs, as);
  const { object, oldObject, ...rest } = request;
  const authorizer = authorizerValue(attrs.user);
  authorizer.set(
    'requestResource',
    requestResourceValue(attrs.user, {
      group: as.resource.group,
      resource: as.resource.resource,
      subresource: attrs.subresource,
      namespace: attrs.namespace,
      name: attrs.name,
    }),
  );
  return {
    object: toCel(object ?? null),
    oldObject: toCel(oldObject ?? null),
    request: toCel(rest),
    authorizer,
  };
}

/** `params` and `namespaceObject` of a policy evaluation (null when there is none). */
export function policyVariables(base: Record<string, unknown>, params: KubeObject | null, namespaceObject: KubeObject | null): Record<string, unknown> {
  return { ...base, params: toCel(params), namespaceObject: toCel(namespaceObject) };
}
