import type { IncomingMessage } from 'node:http';
import { badRequest, requestEntityTooLarge, type StatusError } from '../api/errors';

/** kube-apiserver's limit on a request body. */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

/**
 * The client went away before its body arrived: what net/http's body reader then says. Nobody reads
 * the answer; the access log shows a client error where node's "aborted" was an internal one.
 */
function bodyCutShort(): StatusError {
  return badRequest('unexpected EOF');
}

/** Reads the whole body, refusing (413) as soon as it passes the limit. */
export function readBody(req: IncomingMessage, limit = MAX_REQUEST_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) {
    req.resume();
    return Promise.reject(requestEntityTooLarge(limit));
  }
  // Gone before the handler asked: no event would ever come.
  if (req.readableAborted || (req.destroyed && !req.complete)) return Promise.reject(bodyCutShort());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > limit) {
        failed = true;
        reject(requestEntityTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!failed) resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (!failed) reject(err.code === 'ECONNRESET' ? bodyCutShort() : err);
    });
  });
}
