import type { IncomingHttpHeaders } from 'node:http';
import { badRequest } from '../api/errors';
import { resourceAttributes, type AuthorizationAttributes, type Authorizer } from './authorizer/attributes';
import { forbiddenError } from './authorizer/forbidden';
import type { UserInfo } from './user';

const USER_HEADER = 'impersonate-user';
const GROUP_HEADER = 'impersonate-group';
const UID_HEADER = 'impersonate-uid';
const EXTRA_PREFIX = 'impersonate-extra-';

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
    const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(user);
    requests.push(sa ? { kind: 'ServiceAccount', namespace: sa[1], value: sa[2] } : { kind: 'User', value: user });
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

/** unescapeExtraKey: extra keys travel percent-encoded in header names. */
function decodeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded).toLowerCase();
  } catch {
    return encoded.toLowerCase();
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
