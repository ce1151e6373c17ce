/** Where an outgoing call went: the address dialled and the name its certificate was checked for. */
export interface CallTarget {
  host: string;
  port: number;
  serverName: string;
}

/** The deadline of a call, in Go's words (context.DeadlineExceeded). */
export const GO_DEADLINE = 'context deadline exceeded';

/**
 * A failed HTTPS call (a webhook, an extension API server) in the words Go's client would use,
 * as kube-apiserver's errors carry them; anything else keeps Node's message.
 */
export function goCallError(err: NodeJS.ErrnoException, target: CallTarget): string {
  const addr = `${target.host}:${target.port}`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${addr}: connect: connection refused`;
    case 'ECONNRESET':
      return `read tcp ${addr}: read: connection reset by peer`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: certificate is valid for other names, not ${target.serverName}`;
    case 'ABORT_ERR':
    case 'ETIMEDOUT':
      return GO_DEADLINE;
    default:
      return err.message;
  }
}
