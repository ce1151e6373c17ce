import type { KubeObject } from '../api/types';

export type Subresource = 'status' | 'finalize';

/** The part of an object each update subresource owns: it alone may change it. */
export const OWNED_PATHS: Record<Subresource, string[]> = {
  status: ['status'],
  finalize: ['spec', 'finalizers'],
};

function getPath(obj: Record<string, unknown>, path: string[]): unknown {
  let cur: unknown = obj;
  for (const p of path) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

function setPath(obj: Record<string, unknown>, path: string[], value: unknown): void {
  let cur = obj;
  for (const p of path.slice(0, -1)) {
    if (typeof cur[p] !== 'object' || cur[p] === null) {
      if (value === undefined) return;
      cur[p] = {};
    }
    cur = cur[p] as Record<string, unknown>;
  }
  const last = path[path.length - 1];
  if (value === undefined) delete cur[last];
  else cur[last] = value;
}

/** A main-resource update leaves every subresource-owned part as it was. */
export function keepSubresourceFields(next: KubeObject, prev: KubeObject, subresources: Subresource[]): void {
  for (const sub of subresources) {
    const path = OWNED_PATHS[sub];
    setPath(next, path, structuredClone(getPath(prev, path)));
  }
}

/**
 * A subresource update changes only what the subresource owns: the result is the stored object
 * with that part taken from the request (managedFields and resourceVersion too).
 */
export function applySubresource(next: KubeObject, prev: KubeObject, sub: Subresource): KubeObject {
  const path = OWNED_PATHS[sub];
  const result = structuredClone(prev);
  result.metadata.resourceVersion = next.metadata.resourceVersion;
  if (next.metadata.managedFields) result.metadata.managedFields = next.metadata.managedFields;
  setPath(result, path, getPath(next, path));
  return result;
}
