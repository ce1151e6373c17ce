/**
 * `compute` with its answers for the first `max` distinct inputs kept: clients send the same few
 * header values all day, and a client naming a new one each time only misses the memo. Answers
 * are shared between callers, so they are not to be changed.
 */
export function firstSeenMemo<T extends NonNullable<unknown> | null>(max: number, compute: (key: string) => T): (key: string) => T {
  const known = new Map<string, T>();
  return (key) => {
    let value = known.get(key);
    if (value !== undefined) return value;
    value = compute(key);
    if (known.size < max) known.set(key, value);
    return value;
  };
}
