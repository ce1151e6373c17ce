import type { MaybePromise } from '../../api/maybe-promise';
import type { KubeObject } from '../../api/types';
import { selectionPredicate } from '../../registry/predicate';
import type { ResourceRegistry } from '../../registry/resource-registry';
import { GenericStore } from '../../registry/generic-store';
import { labelSelectorString, type LabelSelectorStruct } from '../../api/label-selector';
import type { AuthorizeFn } from './authorizer-library';
import type { EquivalentsOf } from '../webhooks/equivalents';
import { SYSTEM_READ_ALL, systemReadContext } from '../../registry/request-context';

/** From the watch cache (resourceVersion "0"), as kube's informers have them: no etcd read per request. */
const CACHED = { resourceVersion: '0', match: '' } as const;

/** The resource of a policy's paramKind. */
export interface ParamResource {
  namespaced: boolean;
  get(namespace: string, name: string): Promise<KubeObject | null>;
  list(namespace: string, selector: LabelSelectorStruct): Promise<KubeObject[]>;
}

/** What the policy plugin reads: policies, bindings, params and namespaces from the registry's caches. */
export interface PolicySource {
  policies(): MaybePromise<readonly KubeObject[]>;
  bindings(): MaybePromise<readonly KubeObject[]>;
  namespace(name: string): Promise<KubeObject | null>;
  /** The resource serving `kind` in `apiVersion`, or null when none does. */
  paramResource(apiVersion: string, kind: string): ParamResource | null;
  equivalents: EquivalentsOf;
  authorize: AuthorizeFn;
}

/** Where a kind of policy and its bindings are served. */
export interface PolicyResources {
  version: string;
  policies: string;
  bindings: string;
}

export const VALIDATING_POLICIES: PolicyResources = { version: 'v1', policies: 'validatingadmissionpolicies', bindings: 'validatingadmissionpolicybindings' };
export const MUTATING_POLICIES: PolicyResources = { version: 'v1', policies: 'mutatingadmissionpolicies', bindings: 'mutatingadmissionpolicybindings' };

export function registryPolicySource(
  registry: ResourceRegistry,
  equivalents: EquivalentsOf,
  authorize: AuthorizeFn,
  kind: PolicyResources = VALIDATING_POLICIES,
): PolicySource {
  const group = 'admissionregistration.k8s.io';
  const store = (g: string, resource: string) => registry.lookup(g, 'v1', resource) as GenericStore;
  // Not served (mutating policies behind their gate and --runtime-config): there are none.
  const listOf = (resource: string): MaybePromise<readonly KubeObject[]> => {
    const found = registry.lookup(group, kind.version, resource);
    return found instanceof GenericStore ? found.cachedObjects() : [];
  };
  return {
    policies: () => listOf(kind.policies),
    bindings: () => listOf(kind.bindings),
    namespace: (name) => store('', 'namespaces').find(SYSTEM_READ_ALL, name, CACHED),
    paramResource: (apiVersion, kind) => {
      const [g, v] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
      const entry = registry.groupVersions().find((gv) => gv.group === g && gv.version === v);
      const found = entry?.stores.find((s): s is GenericStore => s instanceof GenericStore && s.def.kind === kind);
      if (!found) return null;
      return {
        namespaced: found.def.namespaced,
        get: (namespace, name) => found.find(systemReadContext(namespace), name, CACHED),
        list: async (namespace, selector) =>
          (await found.list(systemReadContext(namespace), { ...CACHED, predicate: selectionPredicate(found.def, labelSelectorString(selector), '') })).items,
      };
    },
    equivalents,
    authorize,
  };
}
