import type { UserInfo } from '../auth/user';
import type { Level, Stage } from './policy';

/** audit.k8s.io/v1 UserInfo: username, uid, groups, extra; empty fields left out. */
export function auditUser(user: UserInfo): Record<string, unknown> {
  const out: Record<string, unknown> = { username: user.name };
  if (user.uid) out.uid = user.uid;
  if (user.groups.length > 0) out.groups = user.groups;
  if (Object.keys(user.extra).length > 0) out.extra = user.extra;
  return out;
}

export interface ObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

/** metav1.MicroTime as the audit log writes it: RFC 3339 with microseconds. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** audit.k8s.io/v1 Event, in the field order kube-apiserver's JSON log writes. */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: Exclude<Level, 'None'>;
  auditID: string;
  stage: Stage;
  requestURI: string;
  verb: string;
  user: Record<string, unknown>;
  impersonatedUser?: Record<string, unknown>;
  sourceIPs: string[];
  userAgent?: string;
  objectRef?: ObjectReference;
  responseStatus?: Record<string, unknown>;
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}
