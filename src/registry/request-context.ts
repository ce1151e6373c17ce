import type { CallSignal } from '../api/request-abort';
import { setMaxListeners } from 'node:events';
import { timeout } from '../api/errors';
import { PRIVILEGED_GROUP_ONLY } from '../auth/authorizer/privileged-group';
import type { UserInfo } from '../auth/user';
import type { WriteAdmission } from './types';
import { NO_SIGNAL } from './conversion';
import type { RequestAttributes, RequestContext, Subresource, SystemPolicy } from './types';

export type { RequestAttributes, RequestContext, SystemPolicy } from './types';

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

// Shared by every internal write, which listens on it only while its etcd call runs.
setMaxListeners(0, NO_SIGNAL);

/**
 * The admission of kapi's own writes (controllers, bootstrap): none. kube's controllers write
 * through the loopback client and are admitted; docs/divergences.md says so.
 */
export const UNADMITTED: WriteAdmission = {
  mutate: async () => undefined,
  validate: async () => undefined,
};

/** kapi's own bookkeeping: the privileged group's rights, and no admission. */
export const SERVER_OWN_WRITE: SystemPolicy = { authorizer: PRIVILEGED_GROUP_ONLY, admission: UNADMITTED };

/** The context of a write kapi makes itself as system:apiserver, outside any client request. */
export function systemContext(info: Partial<RequestAttributes> & { namespace: string }, policy: SystemPolicy): RequestContext {
  return {
    user: APISERVER_USER,
    info: { verb: '', group: '', version: '', resource: '', subresource: '', name: '', ...info },
    authorizer: policy.authorizer,
    admission: policy.admission,
    deadline: null,
    signal: NO_SIGNAL,
    warn: () => undefined,
    auditAnnotations: new Map(),
  };
}

/**
 * A write the server makes for a request through its loopback client, as kube's registries call
 * their clientsets (eviction's PodDisruptionBudget status): system:apiserver with the privileged
 * group's rights, admitted by the request's chain, bound by the request's deadline and signal.
 */
export function loopbackContext(ctx: RequestContext, info: Partial<RequestAttributes> & { namespace: string }): RequestContext {
  const own = systemContext(info, { authorizer: PRIVILEGED_GROUP_ONLY, admission: ctx.admission });
  return {
    ...own,
    deadline: ctx.deadline,
    get signal() {
      return ctx.signal;
    },
  };
}

/** The same request acting on another namespace or subresource (a collection's items, a view's parent). */
export function withInfo(ctx: RequestContext, info: Partial<RequestAttributes>): RequestContext {
  return {
    user: ctx.user,
    info: { ...ctx.info, ...info },
    authorizer: ctx.authorizer,
    admission: ctx.admission,
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

/**
 * A read's storage options ending with the request (kube's storage calls take the request's
 * context.Context): the caller's own options when they already carry its signal, as the handlers
 * build them, or when the read is kapi's own and never aborted; a copy otherwise.
 */
export function boundTo<O extends { signal?: CallSignal }>(ctx: RequestContext, opts: O): O {
  const { signal } = ctx;
  if (opts.signal === signal || signal === NO_SIGNAL) return opts;
  return { ...opts, signal };
}

/**
 * The context of a read kapi makes itself, outside any client request (controllers' informers,
 * lookups of admission plugins and bootstrap): system:apiserver, never aborted. Reads are not
 * authorized or admitted in the store, so the policy is only named for what the context could write.
 * A `subresource` with a kind of its own (scale) is read as that kind.
 */
export function systemReadContext(namespace: string, subresource: '' | Subresource = ''): RequestContext {
  return systemContext({ namespace, subresource }, SERVER_OWN_WRITE);
}

/** systemReadContext of every namespace (cluster-scoped objects, lists across namespaces): one shared value, since it carries nothing of a request. */
export const SYSTEM_READ_ALL: RequestContext = systemReadContext('');
