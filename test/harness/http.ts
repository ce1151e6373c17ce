/** A small HTTP client for tests: JSON in and out, nothing hidden. */

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** A raw body, sent as is. */
  raw?: string | Buffer;
  contentType?: string;
  accept?: string;
  headers?: Record<string, string>;
}

export class Api {
  constructor(readonly base: string) {}

  async request<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    let body: string | Buffer | undefined;
    if (opts.raw !== undefined) body = opts.raw;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined) headers['Content-Type'] = opts.contentType ?? 'application/json';
    if (opts.accept) headers.Accept = opts.accept;
    const res = await fetch(`${this.base}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, opts?: RequestOptions): Promise<Reply<T>> {
    return this.request<T>('GET', path, opts);
  }

  post<T = any>(path: string, body: unknown, opts: RequestOptions = {}): Promise<Reply<T>> {
    return this.request<T>('POST', path, { ...opts, body });
  }

  put<T = any>(path: string, body: unknown, opts: RequestOptions = {}): Promise<Reply<T>> {
    return this.request<T>('PUT', path, { ...opts, body });
  }

  patch<T = any>(path: string, body: unknown, contentType: string, opts: RequestOptions = {}): Promise<Reply<T>> {
    return this.request<T>('PATCH', path, { ...opts, body, contentType });
  }

  delete<T = any>(path: string, opts?: RequestOptions): Promise<Reply<T>> {
    return this.request<T>('DELETE', path, opts);
  }
}
