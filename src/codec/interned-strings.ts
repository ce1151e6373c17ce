import { RecentlySeen } from './recently-seen';

/**
 * Short strings decoded from stored objects, one copy each. A cached pod holds some thirty values
 * its siblings hold too ("IfNotPresent", "/dev/termination-log", its image, its namespace); the
 * decoder makes a new string for each, which the cache would keep for as long as the object.
 */

/** Longer strings are rarely repeated, and cost more to look up. */
const INTERNED_MAX_LENGTH = 64;
const seen = new RecentlySeen<string>(16_384);

/** `value`, or an equal string decoded before. */
export function interned(value: string): string {
  if (value.length > INTERNED_MAX_LENGTH) return value;
  const known = seen.get(value);
  if (known !== undefined) return known;
  seen.set(value, value);
  return value;
}
