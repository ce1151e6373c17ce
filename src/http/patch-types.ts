import type { ResourceDefinition } from '../registry/resource-definition';

export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
export const APPLY_PATCH = 'application/apply-patch+yaml';
/** Served only with CBORServingAndStorage, as kube-apiserver does. */
export const APPLY_PATCH_CBOR = 'application/apply-patch+cbor';

/** Custom resources, their status and scale are crdHandler's: no Go type, so no strategic merge patch. */
function servedByCrdHandler(def: ResourceDefinition): boolean {
  return def.ownSchema !== undefined && def.group !== 'apiextensions.k8s.io';
}

/**
 * The Content-Types a resource's PATCH accepts, in kube's order: the generic installer's
 * supportedTypes, or crdHandler's without strategic merge patch; apply-patch+cbor last when served.
 */
export function patchTypesFor(def: ResourceDefinition, cbor: boolean): string[] {
  return [JSON_PATCH, MERGE_PATCH, ...(servedByCrdHandler(def) ? [] : [STRATEGIC_MERGE_PATCH]), APPLY_PATCH, ...(cbor ? [APPLY_PATCH_CBOR] : [])];
}
