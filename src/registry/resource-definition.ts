import type { GroupResource, GroupVersionKind, KubeObject } from '../api/types';
import { defaultStrategy } from './strategy';
import type { Verb, ResourceDefinition } from './types';

export type { Verb, PrinterColumn, ServedKind, OwnSchema, ComputeRequest, ResourceDefinition, VersionConversion } from './types';

export const ALL_VERBS: Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

export function groupResource(def: ResourceDefinition): GroupResource {
  return { group: def.group, resource: def.resource };
}

export function groupVersionKind(def: ResourceDefinition): GroupVersionKind {
  return { group: def.group, version: def.version, kind: def.kind };
}

export function apiVersionOfDefinition(def: ResourceDefinition): string {
  return def.group === '' ? def.version : `${def.group}/${def.version}`;
}

/** The apiVersion this definition's objects are stored in. */
export function storageApiVersionOf(def: ResourceDefinition): string {
  return def.storageApiVersion ?? apiVersionOfDefinition(def);
}

/** Create-only resources whose answer is computed, never stored (see `compute`). */
export function defineComputedResource(
  def: Pick<ResourceDefinition, 'group' | 'version' | 'resource' | 'kind' | 'namespaced' | 'compute'> & Partial<ResourceDefinition>,
): ResourceDefinition {
  return defineResource({ verbs: ['create'], strategy: defaultStrategy, ...def });
}

/** Fills in the parts most definitions share. */
export function defineResource<T extends KubeObject = KubeObject>(
  def: Pick<ResourceDefinition<T>, 'group' | 'version' | 'resource' | 'kind' | 'namespaced' | 'strategy'> & Partial<ResourceDefinition<T>>,
): ResourceDefinition<T> {
  if (def.subresources?.includes('scale') && !def.scale) throw new Error(`${def.resource}: the scale subresource needs scale facts`);
  return {
    singular: def.kind.toLowerCase(),
    listKind: `${def.kind}List`,
    shortNames: [],
    categories: [],
    verbs: ALL_VERBS,
    subresources: [],
    createSubresources: [],
    connectSubresources: [],
    storagePath: def.resource,
    returnDeletedObject: false,
    selectableFields: {},
    printerColumns: [],
    ...def,
  };
}
