/**
 * Whether a value holds a list or map large enough that encoding it should run in slices
 * (issue 25), answered in one go for the small values most answers are.
 */

/** A list or map with at least this many entries is large. */
export const LARGE = 256;
/** Containers looked at in one go before the question is left to the walk in slices (as jsonInSlices). */
const CHECKED_IN_ONE_GO = 2048;

export type Container = Record<string, unknown> | unknown[];

/** Only plain data is taken apart; anything else (a Date) is left whole to the encoder. */
export function isContainer(value: unknown): value is Container {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return Array.isArray(value) || proto === Object.prototype || proto === null;
}

export const sizeOf = (c: Container): number => (Array.isArray(c) ? c.length : Object.keys(c).length);

function small(value: Container, budget: { left: number }): boolean {
  if (--budget.left < 0 || sizeOf(value) >= LARGE) return false;
  for (const child of Object.values(value)) if (isContainer(child) && !small(child, budget)) return false;
  return true;
}

/** True when `value` holds no large list or map; false as well past CHECKED_IN_ONE_GO containers. */
export function smallInOneGo(value: unknown): boolean {
  return !isContainer(value) || small(value, { left: CHECKED_IN_ONE_GO });
}
