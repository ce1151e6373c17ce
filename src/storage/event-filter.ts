import type { KubeObject } from '../api/types';
import type { Predicate, StorageEvent } from './interfaces';

/** The previous state of an object as it looked when it left the selection. */
function withResourceVersion(obj: KubeObject, revision: number): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, resourceVersion: String(revision) } };
}

/**
 * Applies a predicate to a change as a filtered watch must: an object that stops matching is
 * reported DELETED, one that starts matching ADDED, and changes outside the selection vanish.
 */
export function filterEvent(event: StorageEvent, predicate: Predicate): StorageEvent | null {
  if (predicate.empty) return event;
  const now = event.type !== 'DELETED' && predicate.matches(event.object);
  const before = event.previous !== undefined && predicate.matches(event.previous);
  switch (event.type) {
    case 'ADDED':
      return now ? event : null;
    case 'DELETED':
      return before || (event.previous === undefined && predicate.matches(event.object)) ? event : null;
    case 'MODIFIED':
      if (now && before) return event;
      if (now) return { ...event, type: 'ADDED' };
      if (before) return { ...event, type: 'DELETED', object: withResourceVersion(event.previous!, event.revision) };
      return null;
  }
}
