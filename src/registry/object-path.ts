/** Reading and writing a field of a plain object by its path (["spec", "replicas"]). */

export function getPath(obj: Record<string, unknown>, path: string[]): unknown {
  let cur: unknown = obj;
  for (const p of path) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

/** Sets the field, creating the objects on the way; undefined removes it (and creates nothing). */
export function setPath(obj: Record<string, unknown>, path: string[], value: unknown): void {
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
