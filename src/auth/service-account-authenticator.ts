import { serviceAccountUsername, type ObjectRef, type ServiceAccountTokens, type VerifiedToken } from './service-account-tokens';
import type { UserInfo } from './user';

/** What the authenticator reads of an object a token names. */
export interface LiveObject {
  uid: string;
  deleting: boolean;
}

/** Reads an object live (null when it does not exist): service accounts, secrets, pods, nodes. */
export type ObjectLookup = (resource: 'serviceaccounts' | 'secrets' | 'pods' | 'nodes', namespace: string, name: string) => Promise<LiveObject | null>;

export type TokenAuthentication = { user: UserInfo; audiences: string[] } | { error: string };

/** Why a token no longer holds because of the object it names, or null (kube's serviceaccount validator). */
async function stillHolds(
  lookup: ObjectLookup,
  resource: Parameters<ObjectLookup>[0],
  namespace: string,
  claim: ObjectRef,
  kind: string,
): Promise<string | null> {
  const live = await lookup(resource, namespace, claim.name);
  if (!live) return 'service account token has been invalidated';
  if (live.uid !== claim.uid) {
    return kind === 'service account'
      ? `service account UID (${live.uid}) does not match claim (${claim.uid})`
      : `${kind} UID (${live.uid}) does not match service account ${kind} ref claim (${claim.uid})`;
  }
  if (live.deleting) return `${kind} ${namespace ? `${namespace}/` : ''}${claim.name} has been deleted`;
  return null;
}

/** ServiceAccountInfo.UserInfo: the service account user with its pod, node and credential id as extra. */
function userOf({ subject, jti }: VerifiedToken): UserInfo {
  const extra: Record<string, string[]> = {};
  if (subject.pod)
    Object.assign(extra, { 'authentication.kubernetes.io/pod-name': [subject.pod.name], 'authentication.kubernetes.io/pod-uid': [subject.pod.uid] });
  if (jti) extra['authentication.kubernetes.io/credential-id'] = [`JTI=${jti}`];
  if (subject.node)
    Object.assign(extra, { 'authentication.kubernetes.io/node-name': [subject.node.name], 'authentication.kubernetes.io/node-uid': [subject.node.uid] });
  return {
    name: serviceAccountUsername(subject.namespace, subject.serviceaccount.name),
    uid: subject.serviceaccount.uid,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${subject.namespace}`],
    extra,
  };
}

/**
 * A service account token kapi's keys signed, unexpired, meant for the audiences asked for (the
 * API server's when none), whose service account and bound secret, pod or node still exist with
 * the same uid and are not being deleted.
 */
export async function authenticateServiceAccountToken(
  tokens: ServiceAccountTokens,
  lookup: ObjectLookup,
  token: string,
  audiences: string[],
): Promise<TokenAuthentication> {
  const verified = tokens.verify(token, audiences, Math.floor(Date.now() / 1000));
  if (typeof verified === 'string') return { error: verified };
  const { subject } = verified;
  const checks: [Parameters<ObjectLookup>[0], string, ObjectRef | undefined, string][] = [
    ['serviceaccounts', subject.namespace, subject.serviceaccount, 'service account'],
    ['secrets', subject.namespace, subject.secret, 'secret'],
    ['pods', subject.namespace, subject.pod, 'pod'],
    ['nodes', '', subject.node, 'node'],
  ];
  for (const [resource, namespace, claim, kind] of checks) {
    // A pod's node is informational: only a token bound to the node itself ends with it.
    if (!claim || (kind === 'node' && subject.pod)) continue;
    const reason = await stillHolds(lookup, resource, namespace, claim, kind);
    if (reason) return { error: reason };
  }
  return { user: userOf(verified), audiences: verified.audiences };
}
