/** Reads a watch stream event by event (one JSON document per line). */
export interface WatchReader {
  status: number;
  contentType: string | null;
  next(timeoutMs?: number): Promise<{ type: string; object: any }>;
  close(): void;
}

export async function openWatch(url: string, accept?: string): Promise<WatchReader> {
  const abort = new AbortController();
  const res = await fetch(url, { signal: abort.signal, headers: accept ? { Accept: accept } : {} });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const events: { type: string; object: any }[] = [];
  let done = false;
  const pump = async (): Promise<void> => {
    const { value, done: end } = await reader.read();
    if (end) {
      done = true;
      return;
    }
    buffer += decoder.decode(value, { stream: true });
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl).trim();
      buffer = buffer.slice(nl + 1);
      if (line) events.push(JSON.parse(line));
    }
  };
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    async next(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (events.length === 0) {
        if (done) throw new Error('watch stream ended');
        if (Date.now() > deadline) throw new Error('no watch event in time');
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([pump(), new Promise((r) => (timer = setTimeout(r, Math.max(0, deadline - Date.now()))))]);
        clearTimeout(timer);
      }
      return events.shift()!;
    },
    close() {
      abort.abort();
    },
  };
}

/** A streaming list's initial events: the names of the ADDED objects in order, and the first event after them. */
export async function initialEvents(watch: WatchReader): Promise<{ added: string[]; after: { type: string; object: any } }> {
  const added: string[] = [];
  let event = await watch.next();
  while (event.type === 'ADDED') {
    added.push(event.object.metadata.name);
    event = await watch.next();
  }
  return { added, after: event };
}
