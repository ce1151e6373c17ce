import { WatchChannel } from './watch-channel';

describe('WatchChannel', () => {
  test('items are delivered in order, then done after close', async () => {
    const ch = new WatchChannel<number>(10);
    expect(ch.push(1)).toBe(true);
    expect(ch.push(2)).toBe(true);
    ch.close();
    expect(ch.push(3)).toBe(false);
    expect(await ch.next()).toEqual({ value: 1, done: false });
    expect(await ch.next()).toEqual({ value: 2, done: false });
    expect(await ch.next()).toEqual({ value: undefined, done: true });
    expect(await ch.next()).toEqual({ value: undefined, done: true });
  });

  test('a waiting consumer gets the next push', async () => {
    const ch = new WatchChannel<string>(1);
    const pending = ch.next();
    expect(ch.push('a')).toBe(true);
    expect(await pending).toEqual({ value: 'a', done: false });
    expect(ch.size).toBe(0);
  });

  test('close wakes a waiting consumer with done', async () => {
    const ch = new WatchChannel<string>();
    const pending = ch.next();
    ch.close();
    expect(await pending).toEqual({ value: undefined, done: true });
  });

  test('overflow closes the channel with an error, after what was queued', async () => {
    const ch = new WatchChannel<number>(2);
    expect(ch.push(1)).toBe(true);
    expect(ch.push(2)).toBe(true);
    expect(ch.push(3)).toBe(false);
    expect(ch.isClosed).toBe(true);
    expect(ch.push(4)).toBe(false);
    expect(await ch.next()).toEqual({ value: 1, done: false });
    expect(await ch.next()).toEqual({ value: 2, done: false });
    await expect(ch.next()).rejects.toThrow('watch consumer fell too far behind');
  });

  test('fail rejects a waiting consumer', async () => {
    const ch = new WatchChannel<number>();
    const pending = ch.next();
    ch.fail(new Error('etcd went away'));
    await expect(pending).rejects.toThrow('etcd went away');
  });

  test('close hooks run exactly once, and at once when already closed', () => {
    const ch = new WatchChannel<number>();
    const calls: string[] = [];
    ch.onClose(() => calls.push('first'));
    ch.close();
    ch.close();
    ch.fail(new Error('late'));
    ch.onClose(() => calls.push('late'));
    expect(calls).toEqual(['first', 'late']);
  });

  test('async iteration drains the queue; breaking out closes the channel', async () => {
    const ch = new WatchChannel<number>();
    for (const n of [1, 2, 3]) ch.push(n);
    const seen: number[] = [];
    for await (const n of ch) {
      seen.push(n);
      if (n === 2) break;
    }
    expect(seen).toEqual([1, 2]);
    expect(ch.isClosed).toBe(true);
    expect(ch.push(4)).toBe(false);
  });

  test('async iteration ends when the producer closes', async () => {
    const ch = new WatchChannel<number>();
    const consumed = (async () => {
      const seen: number[] = [];
      for await (const n of ch) seen.push(n);
      return seen;
    })();
    ch.push(1);
    ch.push(2);
    ch.close();
    expect(await consumed).toEqual([1, 2]);
  });
});
