import { badRequest, isStatusError } from '../api/errors';
import { isPlainObject, type KubeObject } from '../api/types';
import { serviceAccountUsername, type ObjectRef, type VerifiedToken } from '../auth/service-account-tokens';
import { defineComputedResource } from '../registry/resource-definition';
import type { ServerServices } from '../registry/server-services';

type Authentication = { user: Record<string, unknown>; audiences: string[] } | { error: string };

/** The live object a token names, or why the token no longer holds (kube's service account token validator). */
async function stillHolds(services: ServerServices, resource: string, namespace: string, claim: ObjectRef, kind: string): Promise<string | null> {
  try {
    const live = await services.store('', resource).get(namespace, claim.name, { resourceVersion: '', match: '' });
    if (live.metadata.uid !== claim.uid) {
      return kind === 'service account'
        ? `service account UID (${live.metadata.uid ?? ''}) does not match claim (${claim.uid})`
        : `${kind} UID (${live.metadata.uid ?? ''}) does not match service account ${kind} ref claim (${claim.uid})`;
    }
    if (live.metadata.deletionTimestamp) return `${kind} ${namespace ? `${namespace}/` : ''}${claim.name} has been deleted`;
    return null;
  } catch (err) {
    if (isStatusError(err) && err.code === 404) return 'service account token has been invalidated';
    throw err;
  }
}

/** ServiceAccountInfo.UserInfo, with the group every authenticated user gets. */
function userOf({ subject, jti }: VerifiedToken): Record<string, unknown> {
  const extra: Record<string, string[]> = {};
  if (subject.pod) Object.assign(extra, { 'authentication.kubernetes.io/pod-name': [subject.pod.name], 'authentication.kubernetes.io/pod-uid': [subject.pod.uid] });
  if (jti) extra['authentication.kubernetes.io/credential-id'] = [`JTI=${jti}`];
  if (subject.node) Object.assign(extra, { 'authentication.kubernetes.io/node-name': [subject.node.name], 'authentication.kubernetes.io/node-uid': [subject.node.uid] });
  return {
    username: serviceAccountUsername(subject.namespace, subject.serviceaccount.name),
    uid: subject.serviceaccount.uid,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${subject.namespace}`, 'system:authenticated'],
    extra,
  };
}

async function authenticate(token: string, audiences: string[], services: ServerServices): Promise<Authentication> {
  const verified = services.tokens.verify(token, audiences, Math.floor(Date.now() / 1000));
  if (typeof verified === 'string') return { error: verified };
  const { subject } = verified;
  const checks: [string, string, ObjectRef | undefined, string][] = [
    ['serviceaccounts', subject.namespace, subject.serviceaccount, 'service account'],
    ['secrets', subject.namespace, subject.secret, 'secret'],
    ['pods', subject.namespace, subject.pod, 'pod'],
    ['nodes', '', subject.node, 'node'],
  ];
  for (const [resource, namespace, claim, kind] of checks) {
    // A pod's node is informational: only a token bound to the node itself ends with it.
    if (!claim || (kind === 'node' && subject.pod)) continue;
    const reason = await stillHolds(services, resource, namespace, claim, kind);
    if (reason) return { error: reason };
  }
  return { user: userOf(verified), audiences: verified.audiences };
}

/**
 * Token authentication for webhooks and proxies: the service account tokens kapi issued
 * (serviceaccounts/token) are authenticated while they are unexpired, meant for the audiences
 * asked about and their service account (and bound object) still exist with the same uid. The
 * answer is the request with its status filled in, as kube-apiserver's.
 */
export const tokenreviews = defineComputedResource({
  group: 'authentication.k8s.io',
  version: 'v1',
  resource: 'tokenreviews',
  kind: 'TokenReview',
  namespaced: false,
  compute: async ({ object, services }) => {
    const spec = isPlainObject(object.spec) ? object.spec : {};
    const token = spec.token;
    if (typeof token !== 'string' || token === '') throw badRequest('token is required for TokenReview in authentication');
    const audiences = Array.isArray(spec.audiences) ? spec.audiences.filter((a): a is string => typeof a === 'string') : [];
    const result = await authenticate(token, audiences, services);
    // authenticated is omitempty in Go, so false is not written; user is a struct, written even when empty.
    const status = 'error' in result ? { user: {}, error: result.error } : { authenticated: true, user: result.user, audiences: result.audiences };
    return { ...object, status } as KubeObject;
  },
});
