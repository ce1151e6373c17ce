import { randomUUID } from 'node:crypto';
import { StatusError } from '../../api/errors';
import { stringsIn } from '../../api/json-read';
import { isPlainObject, type GroupVersionKind, type KubeObject, type StatusReason } from '../../api/types';
import type { AdmissionAttributes } from '../admission';

/** The AdmissionReview versions kapi speaks, most preferred first. */
const VERSIONS = ['v1', 'v1beta1'];

/** The first version the webhook lists that kapi speaks (the validation guarantees one). */
export function reviewVersion(hook: Record<string, unknown>): string {
  return stringsIn(hook.admissionReviewVersions).find((v) => VERSIONS.includes(v)) ?? 'v1';
}

/** The resource and kind a request is presented as: its own, or an equivalent a webhook's rules name (matchPolicy Equivalent). */
export interface PresentedAs {
  resource: { group: string; version: string; resource: string };
  kind: GroupVersionKind;
  convert(obj: KubeObject): KubeObject;
}

/** The request as it is, with no equivalent resource. */
export function presentedAsItself(attrs: AdmissionAttributes): PresentedAs {
  const { def, kind } = attrs;
  return {
    resource: { group: def.group, version: def.version, resource: def.resource },
    kind: { group: kind.group, version: kind.version, kind: kind.kind },
    convert: (obj) => obj,
  };
}

/** CreateAdmissionRequest: the AdmissionRequest webhooks are sent and CEL expressions read as `request`. */
export function admissionRequest(attrs: AdmissionAttributes, as: PresentedAs = presentedAsItself(attrs)): Record<string, unknown> {
  const { def, kind, user } = attrs;
  const gvk = { group: as.kind.group, version: as.kind.version, kind: as.kind.kind };
  // A subresource's objects are of its own kind (a Scale is autoscaling/v1 whatever its parent's group).
  const apiVersion = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
  const typed = (obj: AdmissionAttributes['object']) => (obj ? { ...as.convert(obj), apiVersion, kind: gvk.kind } : null);
  return {
    uid: randomUUID(),
    kind: gvk,
    resource: as.resource,
    ...(attrs.subresource ? { subResource: attrs.subresource } : {}),
    requestKind: { group: kind.group, version: kind.version, kind: kind.kind },
    requestResource: { group: def.group, version: def.version, resource: def.resource },
    ...(attrs.subresource ? { requestSubResource: attrs.subresource } : {}),
    ...(attrs.name ? { name: attrs.name } : {}),
    ...(attrs.namespace ? { namespace: attrs.namespace } : {}),
    operation: attrs.operation,
    userInfo: {
      username: user.name,
      ...(user.uid ? { uid: user.uid } : {}),
      ...(user.groups.length ? { groups: user.groups } : {}),
      ...(Object.keys(user.extra).length ? { extra: user.extra } : {}),
    },
    object: typed(attrs.object),
    oldObject: typed(attrs.oldObject),
    dryRun: attrs.dryRun,
    options: attrs.options,
  };
}

/** CreateAdmissionObjects: the AdmissionReview request a webhook is sent. */
export function admissionReview(attrs: AdmissionAttributes, version: string, as?: PresentedAs): { uid: string; review: Record<string, unknown> } {
  const request = admissionRequest(attrs, as);
  return { uid: request.uid as string, review: { apiVersion: `admission.k8s.io/${version}`, kind: 'AdmissionReview', request } };
}

/** A response kapi cannot use; kube reports it as a failed call ("received invalid webhook response"). */
export class InvalidResponse extends Error {}

export interface ReviewResponse {
  allowed: boolean;
  status?: Record<string, unknown>;
  patch?: unknown[];
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

/** VerifyAdmissionResponse: the response's version, kind and uid, and a usable patch. */
export function readResponse(body: unknown, version: string, uid: string, mutating: boolean): ReviewResponse {
  const review = isPlainObject(body) ? body : {};
  const apiVersion = `admission.k8s.io/${version}`;
  if (version === 'v1' && (review.apiVersion !== apiVersion || review.kind !== 'AdmissionReview')) {
    throw new InvalidResponse(
      `expected webhook response of ${apiVersion}, Kind=AdmissionReview, got ${String(review.apiVersion ?? '')}, Kind=${String(review.kind ?? '')}`,
    );
  }
  const res = review.response;
  if (!isPlainObject(res)) throw new InvalidResponse('webhook response was absent');
  if (version === 'v1' && res.uid !== uid) throw new InvalidResponse(`expected response.uid="${uid}", got "${String(res.uid ?? '')}"`);
  let patch: unknown[] | undefined;
  if (typeof res.patch === 'string' && res.patch.length > 0) {
    if (!mutating) throw new InvalidResponse('validating webhooks may not return response.patch');
    if (res.patchType === undefined && version === 'v1') throw new InvalidResponse('webhook returned response.patch but not response.patchType');
    if (res.patchType !== undefined && res.patchType !== 'JSONPatch')
      throw new InvalidResponse(`webhook returned invalid response.patchType of "${String(res.patchType)}"`);
    const parsed: unknown = JSON.parse(Buffer.from(res.patch, 'base64').toString('utf8'));
    if (!Array.isArray(parsed)) throw new InvalidResponse('webhook returned a patch that is not a JSON patch');
    patch = parsed;
  } else if (version === 'v1' && res.patchType !== undefined) {
    throw new InvalidResponse('webhook returned response.patchType but not response.patch');
  }
  const audit = isPlainObject(res.auditAnnotations) ? res.auditAnnotations : {};
  return {
    allowed: res.allowed === true,
    status: isPlainObject(res.status) ? res.status : undefined,
    patch,
    warnings: stringsIn(res.warnings),
    auditAnnotations: Object.fromEntries(Object.entries(audit).filter((e): e is [string, string] => typeof e[1] === 'string')),
  };
}

/** webhookerrors.ToStatusErr: a webhook's refusal, at least a 400, its message prefixed with who refused. */
export function denial(webhook: string, status: Record<string, unknown> | undefined): StatusError {
  const deniedBy = `admission webhook "${webhook}" denied the request`;
  const s = status ?? {};
  const code = typeof s.code === 'number' && s.code >= 400 ? s.code : 400;
  const reason = typeof s.reason === 'string' ? s.reason : '';
  const message =
    typeof s.message === 'string' && s.message ? `${deniedBy}: ${s.message}` : reason ? `${deniedBy}: ${reason}` : `${deniedBy} without explanation`;
  const details = isPlainObject(s.details) ? (s.details as StatusError['status']['details']) : undefined;
  const err = new StatusError(code, reason as StatusReason, message, details);
  if (!reason) delete err.status.reason;
  return err;
}
