/** Why a channel closed on a consumer that fell behind. */
export class ConsumerTooSlowError extends Error {
  constructor() {
    super('watch consumer fell too far behind');
    this.name = 'ConsumerTooSlowError';
  }
}

/**
 * A bounded queue between one producer and one consumer. The producer never waits: when the
 * consumer falls `capacity` items behind, the channel closes with an error instead of growing.
 */
export class WatchChannel<T> implements AsyncIterable<T> {
  private readonly queue: T[] = [];
  private waiter: ((r: IteratorResult<T>) => void) | null = null;
  private failWaiter: ((err: Error) => void) | null = null;
  private closed = false;
  private error: Error | null = null;
  private readonly onStop: Array<() => void> = [];

  /** Asks the source for a progress notification, where the source can give one. */
  requestProgress: () => void = () => undefined;

  constructor(private readonly capacity = 1000) {}

  /** Adds an item; returns false (and closes with an error) when the consumer is too slow. */
  push(item: T): boolean {
    if (this.closed) return false;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      this.failWaiter = null;
      w({ value: item, done: false });
      return true;
    }
    if (this.queue.length >= this.capacity) {
      this.fail(new ConsumerTooSlowError());
      return false;
    }
    this.queue.push(item);
    return true;
  }

  /** Ends the stream after what is queued has been read. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.runStopHooks();
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w({ value: undefined, done: true });
    }
  }

  /** Ends the stream with an error, delivered after what is queued. */
  fail(err: Error): void {
    if (this.closed) return;
    this.error = err;
    this.closed = true;
    this.runStopHooks();
    if (this.failWaiter) {
      const f = this.failWaiter;
      this.waiter = null;
      this.failWaiter = null;
      f(err);
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get size(): number {
    return this.queue.length;
  }

  /** Registers cleanup that runs once when the channel closes for any reason. */
  onClose(hook: () => void): void {
    if (this.closed) hook();
    else this.onStop.push(hook);
  }

  private runStopHooks(): void {
    for (const hook of this.onStop.splice(0)) hook();
  }

  next(): Promise<IteratorResult<T>> {
    if (this.queue.length > 0) return Promise.resolve({ value: this.queue.shift() as T, done: false });
    if (this.error) return Promise.reject(this.error);
    if (this.closed) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiter = resolve;
      this.failWaiter = reject;
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => this.next(),
      return: async () => {
        this.close();
        return { value: undefined, done: true };
      },
    };
  }
}
