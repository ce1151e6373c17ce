import type { EventEmitter } from 'node:events';
import { ServerResponse, type IncomingMessage, type RequestListener } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** The client connection of an upgrade request (exec, attach, portforward, proxy to a WebSocket), handed over by node's 'upgrade' event. */
export interface UpgradeConnection {
  socket: Duplex;
  /** Bytes the client sent after the request head. */
  head: Buffer;
}

const UPGRADE = Symbol('kapi.upgrade');
type UpgradeRequest = IncomingMessage & { [UPGRADE]?: UpgradeConnection };

/** The connection of an upgrade request; null for an ordinary one. */
export function upgradeOf(req: IncomingMessage): UpgradeConnection | null {
  return (req as UpgradeRequest)[UPGRADE] ?? null;
}

/**
 * Upgrade requests go through the same listener as every other request (authentication, audit,
 * authorization, routing), with a response bound to their socket: a refusal is an ordinary HTTP
 * answer that ends the connection, while a connect subresource takes the socket over, as Go's
 * handlers hijack it (UpgradeAwareHandler). Upgrades are HTTP/1.1 only, as in Go: an HTTP/2
 * client (client-go's SPDY and WebSocket dialers among them) upgrades over an HTTP/1.1 connection.
 */
export function serveUpgrades(server: EventEmitter, listener: RequestListener): void {
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    (req as UpgradeRequest)[UPGRADE] = { socket, head };
    socket.on('error', () => socket.destroy());
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    // An answer that is not an upgrade ends the connection; what the client still sends is dropped.
    res.on('finish', () => {
      socket.resume();
      socket.end();
    });
    listener(req, res);
  });
}
