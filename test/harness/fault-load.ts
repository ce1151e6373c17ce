/** Load and measurement helpers for fault tests: timed requests, watch recorders, summaries. */

export interface Sample {
  what: string;
  /** ms since the epoch when the request was sent. */
  start: number;
  ms: number;
  /** HTTP status; 0 when the connection failed. */
  status: number;
  body: any;
}

/** One request, timed; never throws (a connection failure is status 0). */
export async function timed(what: string, url: string, init: RequestInit = {}, timeoutMs = 60_000): Promise<Sample> {
  const start = Date.now();
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON (e.g. /readyz)
    }
    return { what, start, ms: Date.now() - start, status: res.status, body };
  } catch (err) {
    return { what, start, ms: Date.now() - start, status: 0, body: String(err) };
  }
}

export function postJson(obj: unknown): RequestInit {
  return { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(obj) };
}

export function configMap(name: string, data: Record<string, string> = { k: 'v' }): unknown {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data };
}

/**
 * Fires `batch()` every `everyMs` for `durationMs`, without waiting for earlier batches, then
 * waits for every request to finish.
 */
export async function loadFor(durationMs: number, everyMs: number, batch: () => Promise<Sample>[]): Promise<Sample[]> {
  const pending: Promise<Sample>[] = [];
  const end = Date.now() + durationMs;
  while (Date.now() < end) {
    pending.push(...batch());
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return Promise.all(pending);
}

/** Polls `probe` until it passes; returns how long that took. */
export async function timeUntil(probe: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await probe()) return Date.now() - start;
    if (Date.now() - start > timeoutMs) throw new Error(`not recovered within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface Summary {
  requests: number;
  failed: number;
  longestMs: number;
  byStatus: Record<number, number>;
}

export function summarize(samples: Sample[], ok: (s: Sample) => boolean = (s) => s.status >= 200 && s.status < 300): Summary {
  const byStatus: Record<number, number> = {};
  for (const s of samples) byStatus[s.status] = (byStatus[s.status] ?? 0) + 1;
  return {
    requests: samples.length,
    failed: samples.filter((s) => !ok(s)).length,
    longestMs: Math.max(0, ...samples.map((s) => s.ms)),
    byStatus,
  };
}

/** A watch stream read continuously: its events, and how (whether) it ended. */
export class WatchRecorder {
  readonly events: { type: string; object: any }[] = [];
  /** 'open' while streaming; 'clean' when the server ended it; 'error' when the connection broke. */
  state: 'open' | 'clean' | 'error' = 'open';
  private readonly abort = new AbortController();

  private constructor() {}

  static async open(url: string): Promise<WatchRecorder> {
    const w = new WatchRecorder();
    const res = await fetch(url, { signal: w.abort.signal });
    if (res.status !== 200) throw new Error(`watch answered ${res.status}: ${await res.text()}`);
    void w.pump(res.body!.getReader());
    return w;
  }

  private async pump(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) {
          this.state = 'clean';
          return;
        }
        buffer += decoder.decode(value, { stream: true });
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl).trim();
          buffer = buffer.slice(nl + 1);
          if (line) this.events.push(JSON.parse(line));
        }
      }
    } catch {
      if (this.state === 'open') this.state = 'error';
    }
  }

  names(type: string): Set<string> {
    return new Set(this.events.filter((e) => e.type === type).map((e) => e.object?.metadata?.name as string));
  }

  /** Waits until every name has been seen as `type`. */
  async waitForAll(type: string, names: Iterable<string>, timeoutMs = 15_000): Promise<string[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const seen = this.names(type);
      const missing = [...names].filter((n) => !seen.has(n));
      if (missing.length === 0 || Date.now() > deadline || this.state !== 'open') return missing;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  close(): void {
    this.state = this.state === 'open' ? 'clean' : this.state;
    this.abort.abort();
  }
}
