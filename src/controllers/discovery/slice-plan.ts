import { jsonEqual } from '../../api/deep-equal';
import type { Endpoint, EndpointSlice } from '../../generated/types/discovery/v1';

/** --max-endpoints-per-slice's default. */
export const MAX_ENDPOINTS_PER_SLICE = 100;

/** What identifies an endpoint across syncs: its pod, else its first address. */
export const endpointKey = (e: Endpoint): string => e.targetRef?.uid || (e.addresses ?? [])[0] || '';

/** The writes that take one group's slices (same address type and ports) to the desired endpoints. */
export interface SlicePlan {
  /** Existing slices and the endpoints they are to list (only those that change). */
  update: { slice: EndpointSlice; endpoints: Endpoint[] }[];
  /** New slices' endpoints. */
  create: Endpoint[][];
  delete: EndpointSlice[];
}

/**
 * The endpointslice reconciler's reconcileByPortMapping, with less churn as its aim: an endpoint
 * stays in the slice that lists it (replaced there when it changed), endpoints gone leave their
 * slice, a slice left empty is deleted; new endpoints fill the slices already being written, then
 * the fullest slices with room, then new slices of at most `max`.
 */
export function planSlices(existing: EndpointSlice[], desired: Endpoint[], max = MAX_ENDPOINTS_PER_SLICE): SlicePlan {
  const wanted = new Map(desired.map((e) => [endpointKey(e), e]));
  const changed = new Map<EndpointSlice, Endpoint[]>();
  const kept = new Map<EndpointSlice, Endpoint[]>();
  for (const slice of existing) {
    const next: Endpoint[] = [];
    let dirty = false;
    for (const endpoint of slice.endpoints ?? []) {
      const want = wanted.get(endpointKey(endpoint));
      if (!want) {
        dirty = true;
        continue;
      }
      wanted.delete(endpointKey(endpoint));
      if (!jsonEqual(want, endpoint)) dirty = true;
      next.push(want);
    }
    (dirty ? changed : kept).set(slice, next);
  }
  const plan: SlicePlan = { update: [], create: [], delete: [] };
  const pending = [...wanted.values()];
  const fill = (endpoints: Endpoint[]): boolean => {
    const room = max - endpoints.length;
    if (room <= 0 || pending.length === 0) return false;
    endpoints.push(...pending.splice(0, room));
    return true;
  };
  for (const endpoints of changed.values()) fill(endpoints);
  const fullestFirst = [...kept.entries()].sort((a, b) => b[1].length - a[1].length);
  for (const [slice, endpoints] of fullestFirst) if (fill(endpoints)) changed.set(slice, endpoints);
  while (pending.length > 0) plan.create.push(pending.splice(0, max));
  for (const [slice, endpoints] of changed) {
    if (endpoints.length === 0) plan.delete.push(slice);
    else plan.update.push({ slice, endpoints });
  }
  return plan;
}
