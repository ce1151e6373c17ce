/**
 * A value at once, or later. Readers of the watch cache answer at once when it can vouch for its
 * objects (as kube's listers read an informer's store), so that a write's admission, which reads
 * them on every request, costs no promise and no turn of the microtask queue for each read.
 */
export type MaybePromise<T> = T | Promise<T>;

/** Any thenable counts (a promise of another realm or library too); data never holds a function. */
export function isPromise<T>(value: MaybePromise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** `then` of a value that may already be there: `next` runs at once when it is. */
export function andThen<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return isPromise(value) ? value.then(next) : next(value);
}
