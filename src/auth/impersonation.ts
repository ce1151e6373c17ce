import type { IncomingHttpHeaders } from 'node:http';
import { badRequest } from '../api/errors';
import { isDns1123Label, isDns1123Subdomain } from '../api/name-validation';
import { resourceAttributes, type AuthorizationAttributes, type Authorizer } from './authorizer/attributes';
import { forbiddenError } from './authorizer/forbidden';
import type { UserInfo } from './user';

const USER_HEADER = 'impersonate-user';
const GROUP_HEADER = 'impersonate-group';
const UID_HEADER = 'impersonate-uid';
const EXTRA_PREFIX = 'impersonate-extra-';

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';
const ANONYMOUS = 'system:anonymous';
const AUTHENTICATED = 'system:authenticated';
const UNAUTHENTICATED = 'system:unauthenticated';

/** One thing asked for, and the permission it needs (the `impersonate` verb on it). */
interface ImpersonationRequest {
  kind: 'User' | 'ServiceAccount' | 'Group' | 'UserExtra' | 'UID';
  value: string;
  namespace?: string;
  extraKey?: string;
}

/** Every value of a header, however often it was sent (Node joins repeated headers otherwise). */
function values(distinct: Record<string, string[] | undefined>, name: string): string[] {
  return distinct[name] ?? [];
}

function buildRequests(distinct: Record<string, string[] | undefined>): ImpersonationRequest[] {
  const requests: ImpersonationRequest[] = [];
  const user = values(distinct, USER_HEADER)[0] ?? '';
  if (user) {
    const sa = splitServiceAccountUsername(user);
    requests.push(sa ? { kind: 'ServiceAccount', ...sa } : { kind: 'User', value: user });
  }
  const groups = values(distinct, GROUP_HEADER);
  for (const group of groups) requests.push({ kind: 'Group', value: group });
  let hasExtra = false;
  for (const [name, vals] of Object.entries(distinct)) {
    if (!name.startsWith(EXTRA_PREFIX)) continue;
    hasExtra = true;
    const extraKey = decodeExtraKey(name.slice(EXTRA_PREFIX.length));
    for (const value of vals ?? []) requests.push({ kind: 'UserExtra', value, extraKey });
  }
  const uid = values(distinct, UID_HEADER)[0] ?? '';
  if (uid) requests.push({ kind: 'UID', value: uid });
  if ((groups.length > 0 || hasExtra || uid) && !user) {
    throw badRequest(`requested ${describe(requests)} without impersonating a user`);
  }
  return requests;
}

/**
 * serviceaccount.SplitUsername: a service account's username names a valid namespace and a valid
 * service account name. Anything else of that form is a user of that name, which needs
 * `impersonate` on users: an `impersonate` on the service accounts of one namespace does not
 * reach `system:serviceaccount:team-a:Admin` or `system:serviceaccount:team-a:a/b`.
 */
function splitServiceAccountUsername(user: string): { namespace: string; value: string } | null {
  if (!user.startsWith(SERVICE_ACCOUNT_PREFIX)) return null;
  const parts = user.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
  if (parts.length !== 2) return null;
  const [namespace, value] = parts;
  return isDns1123Label(namespace).length === 0 && isDns1123Subdomain(value).length === 0 ? { namespace, value } : null;
}

/** unescapeExtraKey of the lower-cased header name: extra keys travel percent-encoded, so an escaped capital stays one. */
function decodeExtraKey(encoded: string): string {
  const lower = encoded.toLowerCase();
  try {
    return decodeURIComponent(lower);
  } catch {
    return lower;
  }
}

/** Go's %v of the []v1.ObjectReference asked for: {Kind Namespace Name UID APIVersion ResourceVersion FieldPath}. */
function describe(requests: ImpersonationRequest[]): string {
  const apiVersion = (r: ImpersonationRequest): string => (r.kind === 'UserExtra' || r.kind === 'UID' ? 'authentication.k8s.io/v1' : '');
  return `[${requests.map((r) => `{${r.kind} ${r.namespace ?? ''} ${r.value}  ${apiVersion(r)}  ${r.extraKey ?? ''}}`).join(' ')}]`;
}

function attributesFor(requestor: UserInfo, r: ImpersonationRequest): AuthorizationAttributes {
  switch (r.kind) {
    case 'ServiceAccount':
      return resourceAttributes(requestor, 'impersonate', { resource: 'serviceaccounts', namespace: r.namespace, name: r.value });
    case 'User':
      return resourceAttributes(requestor, 'impersonate', { resource: 'users', name: r.value });
    case 'Group':
      return resourceAttributes(requestor, 'impersonate', { resource: 'groups', name: r.value });
    case 'UserExtra':
      return resourceAttributes(requestor, 'impersonate', {
        apiGroup: 'authentication.k8s.io',
        resource: 'userextras',
        subresource: r.extraKey,
        name: r.value,
      });
    case 'UID':
      return resourceAttributes(requestor, 'impersonate', { apiGroup: 'authentication.k8s.io', resource: 'uids', name: r.value });
  }
}

/** Whether a request asks to act as someone else. */
export function wantsImpersonation(headers: IncomingHttpHeaders): boolean {
  return Object.keys(headers).some((h) => h === USER_HEADER || h === GROUP_HEADER || h === UID_HEADER || h.startsWith(EXTRA_PREFIX));
}

/**
 * The impersonation filter (k8s.io/apiserver filters.WithImpersonation): every user, group, uid
 * and extra asked for needs `impersonate` on it; the new user gets system:authenticated (or, for
 * system:anonymous, system:unauthenticated) unless a group says otherwise. 403 for the first
 * refusal, null when nothing is asked.
 */
export function impersonate(requestor: UserInfo, distinct: Record<string, string[] | undefined>, authorizer: Authorizer): UserInfo | null {
  const requests = buildRequests(distinct);
  if (requests.length === 0) return null;
  const groupsSpecified = values(distinct, GROUP_HEADER).length > 0;
  let name = '';
  let uid = '';
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const r of requests) {
    const attrs = attributesFor(requestor, r);
    const result = authorizer.authorize(attrs);
    if (result.decision !== 'Allow') throw forbiddenError(attrs, result.reason);
    switch (r.kind) {
      case 'ServiceAccount':
        name = `system:serviceaccount:${r.namespace}:${r.value}`;
        if (!groupsSpecified) groups = ['system:serviceaccounts', `system:serviceaccounts:${r.namespace}`];
        break;
      case 'User':
        name = r.value;
        break;
      case 'Group':
        groups.push(r.value);
        break;
      case 'UserExtra':
        (extra[r.extraKey!] ??= []).push(r.value);
        break;
      case 'UID':
        uid = r.value;
        break;
    }
  }
  if (name !== ANONYMOUS) {
    if (!groups.includes(AUTHENTICATED) && !groups.includes(UNAUTHENTICATED)) groups.push(AUTHENTICATED);
  } else if (!groups.includes(UNAUTHENTICATED)) {
    groups.push(UNAUTHENTICATED);
  }
  return { name, uid, groups, extra };
}
