import { X509Certificate } from 'node:crypto';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

/**
 * What a TLS connection's handshake established about its client, taken once when the handshake
 * completes: a connection's identity is bound to the certificate of that handshake, never read
 * again from the socket (which a renegotiation could change), as Go's tls.ConnectionState is fixed.
 */
export interface HandshakePeer {
  leaf: X509Certificate;
  /** The certificates the client sent after its own: untrusted candidates for intermediates. */
  intermediates: X509Certificate[];
  /** The listener's own verification, against every CA it asks certificates of (client and requestheader). */
  authorized: boolean;
  authorizationError: string;
}

/**
 * Kept on the socket itself rather than in a map: an HTTP/2 request's `socket` is node's proxy of
 * the connection's socket, which reads the socket's own properties (symbols included).
 */
const PEER = Symbol('kapi.handshakePeer');
type PeerSocket = Socket & { [PEER]?: HandshakePeer };

/** The certificates the client presented, its own first (node links them through issuerCertificate). */
function presentedChain(socket: TLSSocket): X509Certificate[] {
  const chain: X509Certificate[] = [];
  const seen = new Set<string>();
  for (let cert = socket.getPeerCertificate(true); cert?.raw && !seen.has(cert.fingerprint256); cert = cert.issuerCertificate) {
    seen.add(cert.fingerprint256);
    chain.push(new X509Certificate(cert.raw));
  }
  return chain;
}

/** Records the client certificate of a connection whose handshake just completed (call at 'secureConnection'). */
export function recordHandshakePeer(socket: TLSSocket): void {
  const [leaf, ...intermediates] = presentedChain(socket);
  if (!leaf) return;
  (socket as PeerSocket)[PEER] = { leaf, intermediates, authorized: socket.authorized, authorizationError: String(socket.authorizationError ?? '') };
}

/** The client certificate the connection's handshake verified (the connection of an HTTP/2 stream's proxy); null when it presented none (or is not TLS). */
export function handshakePeerOf(socket: Socket): HandshakePeer | null {
  return (socket as PeerSocket)[PEER] ?? null;
}
