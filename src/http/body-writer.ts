import type { ServerResponse } from 'node:http';
import { createGzip, constants, type Gzip } from 'node:zlib';

/** kube-apiserver compresses a response only once it is larger than this. */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;
/** kube-apiserver's gzip level: the fastest, with a ratio close to the others. */
const GZIP_LEVEL = constants.Z_BEST_SPEED;

/**
 * Whether the client takes gzip, read as kube-apiserver reads Accept-Encoding: one of its
 * comma-separated tokens is exactly "gzip" (no parameters).
 */
export function acceptsGzip(acceptEncoding: string | string[] | undefined): boolean {
  const header = Array.isArray(acceptEncoding) ? acceptEncoding[0] : acceptEncoding;
  return !!header && header.split(',').some((token) => token.trim() === 'gzip');
}

function commitHeaders(res: ServerResponse, code: number, contentType: string, gzip: boolean): void {
  res.statusCode = code;
  res.setHeader('Content-Type', contentType);
  if (gzip) {
    res.setHeader('Content-Encoding', 'gzip');
    res.appendHeader('Vary', 'Accept-Encoding');
  }
}

/**
 * Writes a complete body (text is UTF-8), gzipped when allowed and larger than the threshold. The
 * gzip stream compresses on libuv's thread pool, not the event loop (a 6 MB object took 100 ms
 * there), and the body goes out chunked, as kube-apiserver's gzip writer sends it.
 */
export function writeWholeBody(res: ServerResponse, code: number, contentType: string, body: Buffer | string, compress: boolean): void {
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  const gzip = compress && length > GZIP_THRESHOLD_BYTES;
  commitHeaders(res, code, contentType, gzip);
  if (gzip) {
    const stream = createGzip({ level: GZIP_LEVEL });
    stream.pipe(res);
    stream.end(body);
    return;
  }
  res.setHeader('Content-Length', length);
  // With a string body Node writes the header block and the body as one UTF-8 string, which keeps
  // ASCII headers as they are. A Warning's UTF-8 bytes are given to Node as latin1 characters
  // (warnings.ts), so beside one the body goes as a Buffer and the header block as latin1.
  res.end(typeof body === 'string' && res.hasHeader('Warning') ? Buffer.from(body) : body);
}

/**
 * A body written in pieces (a streamed list). As kube-apiserver's deferred writer: pieces are held
 * until they pass the gzip threshold, then the response is committed, compressed if allowed; a body
 * that never passes it goes out uncompressed in one write.
 */
export class StreamedBody {
  private held: Buffer[] = [];
  private heldBytes = 0;
  private gzip: Gzip | null = null;
  private committed = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly code: number,
    private readonly contentType: string,
    private readonly compress: boolean,
  ) {}

  write(chunk: Buffer | string): void {
    const piece = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (this.committed) {
      this.sink(piece);
      return;
    }
    this.held.push(piece);
    this.heldBytes += piece.length;
    if (this.heldBytes > GZIP_THRESHOLD_BYTES) this.commit(this.compress);
  }

  end(): void {
    if (!this.committed) {
      writeWholeBody(this.res, this.code, this.contentType, Buffer.concat(this.held, this.heldBytes), false);
      return;
    }
    if (this.gzip) this.gzip.end();
    else this.res.end();
  }

  private commit(gzip: boolean): void {
    this.committed = true;
    commitHeaders(this.res, this.code, this.contentType, gzip);
    if (gzip) {
      this.gzip = createGzip({ level: GZIP_LEVEL });
      this.gzip.pipe(this.res);
    }
    const held = this.held;
    this.held = [];
    for (const piece of held) this.sink(piece);
  }

  private sink(piece: Buffer): void {
    if (this.gzip) this.gzip.write(piece);
    else this.res.write(piece);
  }
}
