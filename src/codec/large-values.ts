/**
 * Whether a value holds a list or map large enough that encoding it should run in slices
 * (issue 25), answered in one go for the small values most answers are.
 */

import type { Walk } from '../api/loop-slices';

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

/** Walked with for-in, which makes no array of keys or values: every answer asks this first. */
function small(value: Container, budget: { left: number }): boolean {
  if (--budget.left < 0) return false;
  if (Array.isArray(value)) {
    if (value.length >= LARGE) return false;
    for (const child of value) if (isContainer(child) && !small(child, budget)) return false;
    return true;
  }
  let size = 0;
  for (const key in value) {
    if (++size >= LARGE) return false;
    const child = value[key];
    if (isContainer(child) && !small(child, budget)) return false;
  }
  return true;
}

/** True when `value` holds no large list or map; false as well past CHECKED_IN_ONE_GO containers. */
export function smallInOneGo(value: unknown): boolean {
  return !isContainer(value) || small(value, { left: CHECKED_IN_ONE_GO });
}

/** A list's indexes or a map's keys, in JSON.stringify's order. */
export function keysOf(container: Container): number[] | string[] {
  return Array.isArray(container) ? Array.from(container.keys()) : Object.keys(container);
}

export function childOf(container: Container, key: number | string): unknown {
  return (container as Record<number | string, unknown>)[key];
}

/** The large containers in `value` (outside other large ones) and every container on the way to one: what is written piece by piece. */
export function* markPieces(value: Container, marked: Set<Container>): Walk<boolean> {
  const size = Array.isArray(value) ? value.length : Object.keys(value).length;
  if (size >= LARGE) {
    marked.add(value);
    return true;
  }
  let found = false;
  for (const key of keysOf(value)) {
    const child = childOf(value, key);
    if (isContainer(child) && (yield* markPieces(child, marked))) found = true;
  }
  if (found) marked.add(value);
  yield;
  return found;
}
