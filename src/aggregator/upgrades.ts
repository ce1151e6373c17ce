import { ServerResponse, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';

const UPGRADED = Symbol('kapi.upgrade');

/** The client connection of an upgrade request (SPDY, websocket), for a handler that takes it over. */
export function upgradeSocket(req: IncomingMessage): Duplex | null {
  return (req as IncomingMessage & { [UPGRADED]?: Duplex })[UPGRADED] ?? null;
}

/**
 * Upgrade requests go through the same listener as every other request (authentication, audit,
 * authorization, routing), with a response written to their connection: a handler that can
 * switch protocols takes the socket (`upgradeSocket`); any other answer is an ordinary response,
 * after which the connection closes (Node's parser has let go of it).
 */
export function serveUpgrades(server: Server, listener: RequestListener): void {
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (head.length > 0) socket.unshift(head);
    (req as IncomingMessage & { [UPGRADED]?: Duplex })[UPGRADED] = socket;
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as never);
    res.on('finish', () => socket.end());
    listener(req, res);
  });
}
