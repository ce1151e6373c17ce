import type { RequestAuthorizer } from '../../auth/authorizer/attributes';
import type { ResourceRegistry } from '../../registry/resource-registry';
import type { UserInfo } from '../../auth/user';
import type { ObjectStore, WriteAdmission } from '../../registry/types';
import { systemContext, SERVER_OWN_WRITE, type RequestContext } from '../../registry/request-context';
import type { Clock } from './clock';
import { EventsWriter, type EventRecorder } from './event-recorder';
import type { ControllerLog } from './informer';
import type { SharedInformers } from './shared-informers';

/**
 * Who kube-controller-manager's controllers write as without --use-service-account-credentials:
 * its own identity, which the bootstrap policy's system:kube-controller-manager role names.
 */
export const CONTROLLER_MANAGER_USER: UserInfo = {
  name: 'system:kube-controller-manager',
  uid: '',
  groups: ['system:authenticated'],
  extra: {},
};

/** Extension API servers behind APIServices, as a client of the API server reaches them (the aggregator). */
export interface AggregatedApis {
  /** A GET of `path` (under /apis/<group>/<version>) as `user`: the status and body a client would get. */
  get(path: string, user: UserInfo, timeoutMs: number): Promise<{ status: number; body: Buffer }>;
}

/** What every workload controller is built from. */
export interface ControllerDeps {
  /** The store of a served resource (its preferred storage version's shape for the group-version asked). */
  store(group: string, version: string, resource: string): ObjectStore;
  /**
   * The store serving a kind (the RESTMapper's answer for a scale target or owner): the
   * group-version's own, else the group's served version of that kind; undefined when none is served.
   */
  storeOfKind(group: string, version: string, kind: string): ObjectStore | undefined;
  aggregated: AggregatedApis;
  /**
   * The context of a write kube's controllers make through the API server (a ReplicaSet's Pods, a
   * Deployment's ReplicaSets): admitted by the server's chain, as system:kube-controller-manager,
   * authorized by the server's authorizer wherever the registry checks.
   */
  admitted(namespace: string): RequestContext;
  /** The context of the server's own bookkeeping (events, status the server keeps): unadmitted. */
  own(namespace: string): RequestContext;
  clock: Clock;
  log: ControllerLog;
  /** The process's shared informers: every controller's cache of a resource is a view of one. */
  informers: SharedInformers;
  /** An event recorder whose events name `component` as their source (e.g. deployment-controller). */
  recorder(component: string): EventRecorder;
}

/** The controllers' view of the server: its registry, admission chain, authorizer and clock. */
export function controllerDeps(
  registry: ResourceRegistry,
  admission: WriteAdmission,
  authorizer: RequestAuthorizer,
  clock: Clock,
  log: ControllerLog,
  aggregated: AggregatedApis,
  informers: SharedInformers,
): ControllerDeps {
  const store = (group: string, version: string, resource: string): ObjectStore => registry.lookup(group, version, resource) as ObjectStore;
  const storeOfKind = (group: string, version: string, kind: string): ObjectStore | undefined => {
    const candidates = registry.stored().filter((s) => s.def.group === group && s.def.kind === kind);
    return candidates.find((s) => s.def.version === version) ?? candidates[0];
  };
  const own = (namespace: string): RequestContext => systemContext({ namespace }, SERVER_OWN_WRITE);
  return {
    store,
    storeOfKind,
    aggregated,
    admitted: (namespace) => ({ ...systemContext({ namespace }, { admission, authorizer }), user: CONTROLLER_MANAGER_USER }),
    own,
    clock,
    log,
    informers,
    recorder: (component) => new EventsWriter(store('', 'v1', 'events'), own, component, clock, log),
  };
}
