import type { KubeObject } from '../api/types';
import { getPath, setPath } from './object-path';
import type { ResourceDefinition, Verb } from './resource-definition';
import { scaleFacts, scaleView } from './scale';
import type { Subresource, SubresourceView, CreateSubresource } from './types';
import { jsonClone } from '../api/json-clone';

export type { Subresource, SubresourceView, CreateSubresource, CreateSubresourceRequest } from './types';

const UPDATE_VERBS: Record<Subresource, Verb[]> = {
  status: ['get', 'patch', 'update'],
  finalize: ['update'],
  scale: ['get', 'patch', 'update'],
  approval: ['get', 'patch', 'update'],
  ephemeralcontainers: ['get', 'patch', 'update'],
  resize: ['get', 'patch', 'update'],
};

/** The verbs a subresource path serves, as discovery lists them. */
export function subresourceVerbs(sub: Subresource | CreateSubresource): Verb[] {
  return typeof sub === 'string' ? UPDATE_VERBS[sub] : ['create'];
}

interface SubresourceRule {
  /** The part of the object a write through the subresource changes; it may change nothing else. */
  owned(def: ResourceDefinition): string[];
  /**
   * Writes run the kind's own update rules (prepareForUpdate, generation, validation) and the main
   * resource may change the owned part as well: scale is a narrower door to spec.replicas, while
   * status and finalize have rules of their own and a part the main resource cannot touch.
   */
  mainRules: boolean;
  /** The owned part is the subresource's alone: a main-resource update leaves it as it was. */
  exclusive: boolean;
  view?(def: ResourceDefinition): SubresourceView;
}

const RULES: Record<Subresource, SubresourceRule> = {
  status: { owned: () => ['status'], mainRules: false, exclusive: true },
  finalize: { owned: () => ['spec', 'finalizers'], mainRules: false, exclusive: true },
  scale: { owned: (def) => scaleFacts(def).specReplicasPath, mainRules: true, exclusive: false, view: scaleView },
  // certificatesigningrequests/approval (csrApprovalStrategy): the conditions alone.
  approval: { owned: () => ['status', 'conditions'], mainRules: false, exclusive: true },
  // Pods' ephemeral containers and resources: ValidatePodUpdate refuses changing them through the pod itself.
  ephemeralcontainers: { owned: () => ['spec', 'ephemeralContainers'], mainRules: false, exclusive: false },
  // The containers' resources and resizePolicy (the strategy's take picks them out); ownership is tracked under spec.
  resize: { owned: () => ['spec'], mainRules: false, exclusive: false },
};

export function ownedPath(def: ResourceDefinition, sub: Subresource): string[] {
  return RULES[sub].owned(def);
}

/** Whether a write (through `sub`, or the main resource for '') runs the kind's own update rules. */
export function runsMainRules(sub: '' | Subresource): boolean {
  return sub === '' || RULES[sub].mainRules;
}

/** The parts of the object only their subresource may change. */
export function exclusivePaths(def: ResourceDefinition): string[][] {
  return def.subresources.filter((s) => RULES[s].exclusive).map((s) => ownedPath(def, s));
}

/** The view of a subresource carrying a kind of its own; null when it carries the object itself. */
export function subresourceView(def: ResourceDefinition, sub: '' | Subresource): SubresourceView | null {
  return sub ? (RULES[sub].view?.(def) ?? null) : null;
}

/** A main-resource update leaves every exclusively owned part as it was. */
export function keepSubresourceFields(next: KubeObject, prev: KubeObject, def: ResourceDefinition): void {
  for (const path of exclusivePaths(def)) setPath(next, path, jsonClone(getPath(prev, path)));
}

/**
 * A subresource update changes only what the subresource owns: the result is the stored object
 * with that part taken from the request (managedFields and resourceVersion too).
 */
export function applySubresource(next: KubeObject, prev: KubeObject, def: ResourceDefinition, sub: Subresource): KubeObject {
  const path = ownedPath(def, sub);
  const result = jsonClone(prev);
  result.metadata.resourceVersion = next.metadata.resourceVersion;
  if (next.metadata.managedFields) result.metadata.managedFields = next.metadata.managedFields;
  const take = def.strategy.subresourceStrategies[sub]?.take;
  if (take) take(result, next);
  else setPath(result, path, getPath(next, path));
  if (sub === 'status' && def.strategy.annotationsThroughStatus) {
    if (next.metadata.annotations) result.metadata.annotations = next.metadata.annotations;
    else delete result.metadata.annotations;
  }
  return result;
}
