import type { Socket } from 'node:net';

/**
 * What `kapi/testing` and its host process (testing-host.ts) say over the host's Unix socket: one
 * JSON object per line. A client's connection is its reference to the host: the instances started
 * through it are stopped when it closes (its process ended), and the host retires once no
 * connection has remained for the linger.
 */

/** Where a caller reaches one instance. */
export interface KapiAddresses {
  /** http://127.0.0.1:PORT, or https://127.0.0.1:PORT with `secure`. */
  url: string;
  /** A kubeconfig file for this instance (removed by stop()). */
  kubeconfigPath: string;
  /** The same kubeconfig as text, for KubeConfig.loadFromString. */
  kubeconfig: string;
  etcdEndpoint: string;
  /** This instance's key prefix in etcd; its keys are deleted by stop(). */
  etcdPrefix: string;
}

export interface StartRequest {
  op: 'start';
  /** Absolute paths of CRD manifests or directories of them. */
  crds: string[];
  /** As the flag spells them: `Name=true,Other=false`. */
  featureGates: string;
  /** Simulated nodes the server runs (kapi-node-0, ...); it is handed out once they are Ready. */
  simulatedNodes: number;
  secure: boolean;
  /** An etcd URL, or null for the host's shared etcd. */
  etcd: string | null;
  /** When set, the server's log lines are sent back as LogLine messages carrying this tag. */
  log: string | null;
}

export type HostRequest =
  /** Answered once the host counts the connection: until then the client holds the start-up lock. */
  | { op: 'hello' }
  | StartRequest
  | { op: 'stop'; etcdPrefix: string }
  /** The shared etcd's endpoint, for an instance in the caller's own process. */
  | { op: 'etcd' };

export type Reply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: string };

export interface LogLine {
  /** The tag of the start request whose server logged it. */
  log: string;
  message: string;
  error?: string;
}

export type HostMessage = Reply | LogLine;

export function send(socket: Socket, message: object): void {
  socket.write(`${JSON.stringify(message)}\n`);
}

/** Calls `onMessage` for each complete line that arrives on the socket; a line that is not JSON ends the connection. */
export function onLines<T>(socket: Socket, onMessage: (message: T) => void): void {
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (!line) continue;
      let message: T;
      try {
        message = JSON.parse(line) as T;
      } catch {
        socket.destroy();
        return;
      }
      onMessage(message);
    }
  });
}
