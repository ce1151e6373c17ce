import { once } from 'node:events';
import { internalError, resourceExpired, toStatusError } from '../../api/errors';
import type { KubeObject, WatchEventType } from '../../api/types';
import { apiVersionOfDefinition } from '../../registry/resource-definition';
import type { Predicate, WatchItem } from '../../storage/interfaces';
import { isStorageError } from '../../storage/storage-error';
import { parseListOptions } from '../list-options';
import { encode, present } from '../respond';
import type { ResourceRequest } from './context';

/** kube-apiserver's --min-request-timeout: watches without timeoutSeconds end after 1 to 2 times this. */
const MIN_REQUEST_TIMEOUT_SECONDS = 1800;

function singleObject(predicate: Predicate, name: string): Predicate {
  return { empty: false, matches: (obj) => obj.metadata.name === name && predicate.matches(obj) };
}

/** A streamed watch: one JSON document per event, written as the client can take them. */
export async function handleWatch(r: ResourceRequest): Promise<void> {
  const { info, store, query, output, res } = r;
  const opts = parseListOptions(query, store.def, true);
  const predicate = info.name ? singleObject(opts.predicate, info.name) : opts.predicate;
  const channel = await store.watch(info.namespace, {
    resourceVersion: opts.resourceVersion,
    predicate,
    sendInitialEvents: opts.sendInitialEvents,
  });
  const timeoutSeconds = opts.timeoutSeconds ?? MIN_REQUEST_TIMEOUT_SECONDS * (1 + Math.random());
  const timer = setTimeout(() => channel.close(), timeoutSeconds * 1000);
  const stop = (): void => channel.close();
  r.signal.addEventListener('abort', stop);

  res.statusCode = 200;
  res.setHeader('Content-Type', `${output.contentType};stream=watch`);
  res.setHeader('Transfer-Encoding', 'chunked');
  res.flushHeaders();

  let first = true;
  const write = async (type: WatchEventType, object: unknown): Promise<void> => {
    const body = encode({ type, object }, output.encoding, false);
    if (!res.write(body)) await once(res, 'drain', { signal: r.signal }).catch(() => channel.close());
  };
  const bookmark = (revision: number, annotations?: Record<string, string>): KubeObject => ({
    kind: store.def.kind,
    apiVersion: apiVersionOfDefinition(store.def),
    metadata: { resourceVersion: String(revision), ...(annotations ? { annotations } : {}) },
  });
  const toWire = (item: WatchItem): [WatchEventType, unknown] | null => {
    switch (item.type) {
      case 'ADDED':
      case 'MODIFIED':
      case 'DELETED': {
        const shown = present(store.def, item.object, output, query) as Record<string, unknown>;
        if (!first && shown.kind === 'Table') shown.columnDefinitions = [];
        first = false;
        return [item.type, shown];
      }
      case 'INITIAL_EVENTS_END':
        return opts.allowWatchBookmarks ? ['BOOKMARK', bookmark(item.revision, { 'k8s.io/initial-events-end': 'true' })] : null;
      case 'PROGRESS':
        return null;
    }
  };
  try {
    for await (const item of channel) {
      const wire = toWire(item);
      if (wire) await write(wire[0], wire[1]);
    }
  } catch (err) {
    const status = isStorageError(err, 'TooOld')
      ? resourceExpired(`too old resource version: ${opts.resourceVersion}`)
      : isStorageError(err)
        ? internalError(err.message)
        : toStatusError(err);
    if (!res.writableEnded) await write('ERROR', status.status).catch(() => undefined);
  } finally {
    clearTimeout(timer);
    r.signal.removeEventListener('abort', stop);
    channel.close();
    if (!res.writableEnded) res.end();
  }
}
