// client-node's Watch and a `ws` WebSocket client against kapi (ES modules, hence their own process); prints one JSON report.
// argv: mode ('client-node' | 'websocket'), then the mode's arguments.
import WebSocket from 'ws';
import { Watch } from '@kubernetes/client-node';
import { kubeConfigFor } from './kube-config.mjs';

const [mode, ...args] = process.argv.slice(2);

/** client-node's Watch of `path` from `resourceVersion`: every event it reports, and how it ended. */
async function clientNodeWatch(server, path, resourceVersion) {
  const events = [];
  const ended = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve('no end in 15 s'), 15_000);
    new Watch(kubeConfigFor(server))
      .watch(
        path,
        { resourceVersion },
        (type, object) => events.push({ type, object }),
        (err) => {
          clearTimeout(timer);
          resolve(err ? String(err) : 'done');
        },
      )
      .catch((err) => resolve(`refused: ${err}`));
  });
  return { events, ended };
}

/**
 * A WebSocket watch of `url` (TLS, the server's certificate not checked) with `options` (headers, origin, protocols,
 * and `expect`: how many messages to take before closing): the handshake's status and protocol, every message (text
 * as JSON, binary by length), and the close code. Once open, it sends `writes` ({url, method, body}) in order.
 */
function webSocketWatch(url, options, writes) {
  return new Promise((resolve) => {
    const report = { messages: [] };
    const ws = new WebSocket(url, options.protocols ?? [], { rejectUnauthorized: false, headers: options.headers, origin: options.origin });
    const timer = setTimeout(() => {
      report.timedOut = true;
      ws.terminate();
    }, 15_000);
    ws.on('unexpected-response', (_req, res) => {
      report.status = res.statusCode;
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => {
        report.body = body;
        clearTimeout(timer);
        resolve(report);
      });
    });
    ws.on('open', async () => {
      report.status = 101;
      report.protocol = ws.protocol;
      for (const w of writes ?? []) await fetch(w.url, { method: w.method, headers: { 'Content-Type': 'application/json' }, body: w.body });
    });
    ws.on('message', (data, isBinary) => {
      report.messages.push(isBinary ? { binary: data.length, first: data[0] } : { text: JSON.parse(data.toString()), newline: data.toString().endsWith('\n') });
      if (report.messages.length === options.expect) ws.close();
    });
    ws.on('close', (code) => {
      report.closeCode = code;
      clearTimeout(timer);
      resolve(report);
    });
    ws.on('error', (err) => (report.error = String(err)));
  });
}

const report =
  mode === 'client-node'
    ? await clientNodeWatch(args[0], args[1], args[2])
    : await webSocketWatch(args[0], JSON.parse(args[1]), args[2] ? JSON.parse(args[2]) : null);
process.stdout.write(JSON.stringify(report));
