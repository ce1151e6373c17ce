import type { KubeObject } from '../../api/types';
import type { PolicyRule } from './attributes';

/** The builders of the bootstrap policy's objects: every one labelled and annotated as kube-apiserver's are. */

export const AUTO_UPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';
const BOOTSTRAP_LABELS = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };
const RBAC_API_VERSION = 'rbac.authorization.k8s.io/v1';
const RBAC_GROUP = 'rbac.authorization.k8s.io';

function bootstrapMeta(name: string, labels: Record<string, string> = {}, namespace?: string): KubeObject['metadata'] {
  return { name, ...(namespace ? { namespace } : {}), labels: { ...BOOTSTRAP_LABELS, ...labels }, annotations: { [AUTO_UPDATE_ANNOTATION]: 'true' } };
}

export function clusterRole(name: string, rules: PolicyRule[] | null, extra: { labels?: Record<string, string>; aggregateFrom?: string } = {}): KubeObject {
  const role: KubeObject = { apiVersion: RBAC_API_VERSION, kind: 'ClusterRole', metadata: bootstrapMeta(name, extra.labels) };
  if (extra.aggregateFrom) role.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [extra.aggregateFrom]: 'true' } }] };
  role.rules = rules ?? [];
  return role;
}

/** A Role of the bootstrap policy (kube's testdata/namespace-roles.yaml). */
export function role(namespace: string, name: string, rules: PolicyRule[]): KubeObject {
  return { apiVersion: RBAC_API_VERSION, kind: 'Role', metadata: bootstrapMeta(name, {}, namespace), rules };
}

export type Subject = { kind: 'User' | 'Group'; apiGroup: string; name: string } | { kind: 'ServiceAccount'; name: string; namespace: string };
export const user = (name: string): Subject => ({ kind: 'User', apiGroup: RBAC_GROUP, name });
export const group = (name: string): Subject => ({ kind: 'Group', apiGroup: RBAC_GROUP, name });
export const serviceAccount = (name: string): Subject => ({ kind: 'ServiceAccount', name, namespace: 'kube-system' });

/** A ClusterRoleBinding named as its role; kube's system:node binding has no subjects at all (the Node authorizer took over). */
export function clusterRoleBinding(roleName: string, subjects: Subject[] | null): KubeObject {
  const binding: KubeObject = {
    apiVersion: RBAC_API_VERSION,
    kind: 'ClusterRoleBinding',
    metadata: bootstrapMeta(roleName),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: roleName },
  };
  if (subjects) binding.subjects = subjects;
  return binding;
}

export function roleBinding(namespace: string, name: string, roleName: string, subjects: Subject[]): KubeObject {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: 'RoleBinding',
    metadata: bootstrapMeta(name, {}, namespace),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: roleName },
    subjects,
  };
}

export const rule = (apiGroups: string[], resources: string[], verbs: string[]): PolicyRule => ({ apiGroups, resources, verbs });
export const named = (apiGroups: string[], resources: string[], resourceNames: string[], verbs: string[]): PolicyRule => ({
  apiGroups,
  resources,
  resourceNames,
  verbs,
});
export const urls = (nonResourceURLs: string[], verbs: string[]): PolicyRule => ({ nonResourceURLs, verbs });
/** eventsRule(): what every component that records events is granted. */
export const EVENTS_WRITE = rule(['', 'events.k8s.io'], ['events'], ['create', 'patch', 'update']);
