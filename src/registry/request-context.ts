import { setMaxListeners } from 'node:events';
import { timeout } from '../api/errors';
import type { UserInfo } from '../auth/user';

/** What a resource request asks, as k8s.io/apiserver's RequestInfo: parsed once from the path. */
export interface RequestAttributes {
  verb: string;
  group: string;
  version: string;
  resource: string;
  /** '' for the resource itself. */
  subresource: string;
  namespace: string;
  /** '' for a collection. */
  name: string;
}

/**
 * One request as the registry sees it, built once by the handler (kube keeps the same facts in
 * its request context.Context): who asks, what is asked, until when, and where warnings and audit
 * annotations go. Every store write takes it; the store takes the namespace from it.
 */
export interface RequestContext {
  readonly user: UserInfo;
  readonly info: RequestAttributes;
  /** Epoch milliseconds after which the request must not change anything; null: no deadline. */
  readonly deadline: number | null;
  /** Aborted when the client goes away or the deadline passes. */
  readonly signal: AbortSignal;
  /** Adds a `Warning` header to the response (deduplicated). */
  warn(text: string): void;
  /** Audit annotations of the request's audit event (key → value). */
  readonly auditAnnotations: Map<string, string>;
}

/**
 * Who kapi's own writes (controllers, bootstrap) act as: kube-apiserver's loopback client user,
 * a member of the privileged group.
 */
export const APISERVER_USER: UserInfo = {
  name: 'system:apiserver',
  uid: '',
  groups: ['system:authenticated', 'system:masters'],
  extra: {},
};

const NEVER_ABORTED = new AbortController().signal;
// Shared by every internal write, which listens on it only while its etcd call runs.
setMaxListeners(0, NEVER_ABORTED);

/** The context of a write kapi makes itself, outside any client request. */
export function internalContext(info: Partial<RequestAttributes> & { namespace: string }): RequestContext {
  return {
    user: APISERVER_USER,
    info: { verb: '', group: '', version: '', resource: '', subresource: '', name: '', ...info },
    deadline: null,
    signal: NEVER_ABORTED,
    warn: () => undefined,
    auditAnnotations: new Map(),
  };
}

/** The same request acting on another namespace or subresource (a collection's items, a view's parent). */
export function withInfo(ctx: RequestContext, info: Partial<RequestAttributes>): RequestContext {
  return {
    user: ctx.user,
    info: { ...ctx.info, ...info },
    deadline: ctx.deadline,
    get signal() {
      return ctx.signal;
    },
    warn: (text) => ctx.warn(text),
    auditAnnotations: ctx.auditAnnotations,
  };
}

/**
 * A write is never committed for a request that was abandoned or ran out of time: checked right
 * before each etcd transaction, as kube's storage calls fail on a done context. The error is the
 * one kube's request finisher gives (the client that went away never sees it).
 */
export function ensureActive(ctx: RequestContext): void {
  const expired = ctx.deadline !== null && Date.now() >= ctx.deadline;
  if (!expired && !ctx.signal.aborted) return;
  throw timeout(`request did not complete within requested timeout - ${expired ? 'context deadline exceeded' : 'context canceled'}`, 0);
}
