import { abortSignalOf, onAbort } from '../../api/request-abort';
import { once } from 'node:events';
import { badRequest, isStatusError, toStatusError, type StatusError } from '../../api/errors';
import { parseFieldSelector } from '../../api/field-selector';
import type { KubeObject, WatchEventType } from '../../api/types';
import { apiVersionOfDefinition, groupResource } from '../../registry/resource-definition';
import type { Predicate, WatchItem } from '../../storage/interfaces';
import { ConsumerTooSlowError, type WatchChannel } from '../../storage/watch-channel';
import { interpretStorageError } from '../../registry/storage-errors';
import { parseListOptions } from '../list-options';
import { encodeWatchEvent } from '../encode';
import { includeObjectParam, present } from '../respond';
import { isWebSocketRequest, WebSocketSender, webSocketHandshake } from '../websocket';
import type { ResourceRequest } from './context';
import { upgradeOf, type UpgradeConnection } from './proxy-upgrade';

function singleObject(predicate: Predicate, name: string): Predicate {
  return { empty: false, matches: (obj) => obj.metadata.name === name && predicate.matches(obj) };
}

/** Where a watch's events go: a chunked HTTP body, or WebSocket messages. */
interface WatchSink {
  /** Writes one encoded event; false once the client is gone. */
  send(event: Buffer): Promise<boolean>;
  ended(): boolean;
  end(): void;
  /** Resolves when the client leaves (a WebSocket; an HTTP client's departure fires the request's signal). */
  clientGone?: Promise<void>;
}

function httpSink(r: ResourceRequest): WatchSink {
  const { res } = r;
  res.statusCode = 200;
  res.setHeader('Content-Type', r.output.contentType);
  res.setHeader('Transfer-Encoding', 'chunked');
  res.flushHeaders();
  return {
    send: async (event) => {
      if (!res.write(event)) await once(res, 'drain', { signal: abortSignalOf(r.ctx.signal) }).catch(() => undefined);
      return !res.writableEnded && !res.destroyed;
    },
    ended: () => res.writableEnded,
    end: () => {
      if (!res.writableEnded) res.end();
    },
  };
}

/**
 * kube's HandleWS: after the handshake every event is one message, text for JSON, binary for
 * Protobuf and CBOR (without the length prefix the HTTP stream frames Protobuf with); the
 * connection ends with a normal close. A refused handshake is Go's raw answer; null then.
 */
function webSocketSink(r: ResourceRequest, conn: UpgradeConnection): WatchSink | null {
  const handshake = webSocketHandshake(r.req);
  r.res.statusCode = 'accept' in handshake ? 101 : handshake.code;
  if (!('accept' in handshake)) {
    conn.socket.end(handshake.raw);
    return null;
  }
  conn.socket.write(handshake.accept);
  const sender = new WebSocketSender(conn.socket, conn.head);
  const encoding = r.output.encoding;
  const text = encoding === 'json' || encoding === 'yaml';
  let ended = false;
  return {
    send: (event) => sender.send(encoding === 'protobuf' ? event.subarray(4) : event, text, abortSignalOf(r.ctx.signal)),
    ended: () => ended,
    end: () => {
      ended = true;
      sender.close();
    },
    clientGone: sender.closed,
  };
}

function openSink(r: ResourceRequest): WatchSink | null {
  const conn = isWebSocketRequest(r.req) ? upgradeOf(r.req) : null;
  return conn ? webSocketSink(r, conn) : httpSink(r);
}

/**
 * A streamed watch: one document per event, written as fast as the client takes them. Failures
 * that kube-apiserver reports inside the stream (a resourceVersion too old for the history) are
 * sent as an ERROR event carrying the Status.
 */
export async function handleWatch(r: ResourceRequest): Promise<void> {
  const { info, store, query, output } = r;
  const opts = await parseListOptions(query, store.def, 'watch', r.ctx.signal, r.watchListEnabled);
  // serveWatchHandler checks the Table options (optionsForTransform) before the stream starts.
  if (output.representation.kind === 'Table') includeObjectParam(query);
  // ListResource with a name (a /watch/ path): a field selector may only name the same object.
  const fieldSelector = query.get('fieldSelector') ?? '';
  if (
    info.name &&
    fieldSelector !== '' &&
    !parseFieldSelector(fieldSelector).some((r) => r.field === 'metadata.name' && r.operator === '=' && r.value === info.name)
  ) {
    throw badRequest("fieldSelector metadata.name doesn't match requested name");
  }
  const predicate = info.name ? singleObject(opts.predicate, info.name) : opts.predicate;
  let channel: WatchChannel<WatchItem> | null = null;
  let startError: StatusError | null = null;
  try {
    channel = await store.watch(r.ctx, { resourceVersion: opts.resourceVersion, predicate, sendInitialEvents: opts.sendInitialEvents, signal: r.ctx.signal });
  } catch (err) {
    // The cacher's errWatcher: once the request is admitted, a resourceVersion too old (410) or
    // too new to wait for (504 ResourceVersionTooLarge) is the stream's one ERROR event.
    if (!(isStatusError(err) && (err.code === 410 || err.status.details?.causes?.some((c) => c.reason === 'ResourceVersionTooLarge')))) throw err;
    startError = err;
  }

  const sink = openSink(r);
  if (!sink) {
    channel?.close();
    return;
  }
  const write = async (type: WatchEventType, object: unknown): Promise<void> => {
    if (!(await sink.send(encodeWatchEvent(type, object, output.encoding)))) channel?.close();
  };
  if (startError || !channel) {
    await write('ERROR', startError!.status);
    sink.end();
    return;
  }

  const stream = channel;
  // The request's signal ends the watch: at timeoutSeconds or --min-request-timeout (the deadline
  // filter), when the client goes away, or at shutdown. It may have fired already.
  const stop = (): void => stream.close();
  const stopListening = onAbort(r.ctx.signal, stop);
  void sink.clientGone?.then(stop);
  let first = true;
  const bookmark = (revision: number, annotations?: Record<string, string>): KubeObject => ({
    kind: store.def.kind,
    apiVersion: apiVersionOfDefinition(store.def),
    metadata: { resourceVersion: String(revision), ...(annotations ? { annotations } : {}) },
  });
  // As kube-apiserver, an event that cannot take the asked form (a list form of one object) goes out as is.
  const shownObject = (object: KubeObject): Record<string, unknown> => {
    try {
      return present(store.def, object, output, query) as Record<string, unknown>;
    } catch (err) {
      if (isStatusError(err) && err.code === 406) return object;
      throw err;
    }
  };
  const toWire = async (item: WatchItem): Promise<[WatchEventType, unknown] | null> => {
    switch (item.type) {
      case 'ADDED':
      case 'MODIFIED':
      case 'DELETED': {
        const shown = shownObject(await store.toServed(item.object, r.ctx.signal));
        // A Table stream describes its columns once, in the first event; later ones print no headers.
        if (!first && shown.kind === 'Table') shown.columnDefinitions = null;
        first = false;
        r.onWatchEvent();
        return [item.type, shown];
      }
      case 'INITIAL_EVENTS_END':
        return opts.allowWatchBookmarks ? ['BOOKMARK', bookmark(item.revision, { 'k8s.io/initial-events-end': 'true' })] : null;
      case 'PROGRESS':
        return opts.allowWatchBookmarks ? ['BOOKMARK', bookmark(item.revision)] : null;
    }
  };
  try {
    for await (const item of stream) {
      const wire = await toWire(item);
      if (wire) await write(wire[0], wire[1]);
    }
  } catch (err) {
    // A watcher dropped for falling behind just ends; the client re-watches from its last version.
    if (!sink.ended() && !(err instanceof ConsumerTooSlowError)) {
      const status = toStatusError(interpretStorageError(err, groupResource(store.def), '', 'watch'));
      await write('ERROR', status.status).catch(() => undefined);
    }
  } finally {
    stopListening();
    stream.close();
    sink.end();
  }
}
