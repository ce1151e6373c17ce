import { setMaxListeners } from 'node:events';

/**
 * A request's end (its deadline, its client gone, a shutdown) as the calls it makes wait on it.
 * Every request has one, and most end without it firing; an AbortSignal cost about 4 µs to create
 * and each listener 1.6 µs, so a request's own is this plain object, and a real AbortSignal is
 * made only for the APIs that take one (`signal`). Calls wait on either (CallSignal).
 */
export class RequestAbort {
  private ended = false;
  private why: unknown = undefined;
  private hooks: (() => void)[] | null = null;
  private controller: AbortController | null = null;

  get aborted(): boolean {
    return this.ended;
  }

  get reason(): unknown {
    return this.why;
  }

  /** Ends the request for every call waiting on it; only the first end counts. */
  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.ended) return;
    this.ended = true;
    this.why = reason;
    const hooks = this.hooks;
    this.hooks = null;
    for (const hook of hooks ?? []) {
      try {
        hook();
      } catch (err) {
        // As an EventTarget reports a listener's error: the other hooks and the signal still run.
        process.nextTick(() => {
          throw err;
        });
      }
    }
    this.controller?.abort(reason);
  }

  /** Runs `hook` once the request ends (at once if it has); the function returned takes it back. */
  onAbort(hook: () => void): () => void {
    if (this.ended) {
      hook();
      return () => undefined;
    }
    (this.hooks ??= []).push(hook);
    return () => {
      const at = this.hooks?.indexOf(hook) ?? -1;
      if (at >= 0) this.hooks!.splice(at, 1);
    };
  }

  /** The same end as an AbortSignal, made on first use (fetch, events.once, a webhook call). */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      // A request's many calls (a delete-collection's) may all listen on it at once.
      setMaxListeners(0, this.controller.signal);
      if (this.ended) this.controller.abort(this.why);
    }
    return this.controller.signal;
  }
}

/** What a call waits on to give up: a request's end, or any AbortSignal. */
export type CallSignal = AbortSignal | RequestAbort;

/** Runs `hook` once `signal` ends (at once if it has); the function returned takes it back. */
export function onAbort(signal: CallSignal, hook: () => void): () => void {
  if (signal instanceof RequestAbort) return signal.onAbort(hook);
  if (signal.aborted) {
    hook();
    return () => undefined;
  }
  signal.addEventListener('abort', hook, { once: true });
  return () => signal.removeEventListener('abort', hook);
}

/** `signal` as an AbortSignal, for the APIs that take only that. */
export function abortSignalOf(signal: CallSignal): AbortSignal {
  return signal instanceof RequestAbort ? signal.signal : signal;
}
