/**
 * `value` frozen to its leaves, for a value shared by readers that must never change it. An object
 * already frozen is taken as frozen to its leaves: every shared value is frozen through here (or,
 * for FieldsV1 trees, bottom-up by their reader).
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const v of Object.values(value)) deepFreeze(v);
  return value;
}
