import type { ObjectStore } from '../../registry/types';
import { hostname } from 'node:os';
import { isStatusError } from '../../api/errors';
import type { KubeObject } from '../../api/types';
import type { Event, ObjectReference } from '../../generated/types/core/v1';
import type { RequestContext } from '../../registry/request-context';
import { timestampAt } from '../../registry/time';
import type { Clock } from './clock';
import type { ControllerLog } from './informer';
import { yieldToBackground } from './turn-budget';

export type EventType = 'Normal' | 'Warning';

/** client-go's record.EventRecorder: events about an object (a part of it: `fieldPath`), written in the background. */
export interface EventRecorder {
  event(obj: KubeObject, type: EventType, reason: string, message: string, fieldPath?: string): void;
  /** An event about a reference made by hand, as the kubelet's about its Node (UID: the node's name). */
  eventAbout(ref: ObjectReference, type: EventType, reason: string, message: string): void;
  /** A recorder of the same component on another host (a simulated kubelet's node), remembering what this one does. */
  forHost(host: string): EventRecorder;
}

/** client-go's events cache: at most this many keys are remembered (maxLruCacheEntries). */
const MAX_KEYS = 4096;
/** EventAggregator: more than this many similar events (same object, type and reason) within the interval are combined. */
const AGGREGATE_MAX_EVENTS = 10;
const AGGREGATE_INTERVAL_MS = 600_000;
/** EventSourceObjectSpamFilter: a burst of 25 events per object and source, then one per 5 minutes. */
const SPAM_BURST = 25;
const SPAM_REFILL_MS = 300_000;

interface Seen {
  name: string;
  namespace: string;
  count: number;
  firstTimestamp: string;
}

/**
 * The sequence that tells apart the names of events made in the same millisecond: one for the
 * process, since every writer (a controller's, each simulated kubelet's) names its events after
 * the object they are about, and client-go's names (`<object>.<UnixNano hex>`) never collide.
 */
let nameSequence = 0;

interface Similar {
  messages: Set<string>;
  since: number;
}

/**
 * What client-go's correlator remembers (events cache, aggregator, spam filter), each bounded to
 * MAX_KEYS. Writers of one component on many hosts (the simulated kubelets) share one: its keys
 * name the host, and it stays as large as one process's.
 */
class CorrelatorMemory {
  readonly seen = new Map<string, Seen>();
  readonly similar = new Map<string, Similar>();
  readonly buckets = new Map<string, { tokens: number; at: number }>();
}

/** Map as an LRU: a touched key moves to the end, the oldest goes first. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_KEYS) map.delete(map.keys().next().value!);
}

/**
 * Writes core/v1 Events as client-go's recorder with its correlator does (tools/record): a new
 * event is named `<object>.<hex time>`; a repeat of one (same source, object, type, reason and
 * message) raises its count and lastTimestamp; more than 10 similar events in 10 minutes are
 * combined into one "(combined from similar events): ..." event; an object's source is held to
 * a burst of 25 events, then one every 5 minutes. Failures are logged: an event never fails
 * the work it reports.
 */
export class EventsWriter implements EventRecorder {
  constructor(
    private readonly events: ObjectStore,
    private readonly context: (namespace: string) => RequestContext,
    private readonly component: string,
    private readonly clock: Clock,
    private readonly log: ControllerLog,
    private readonly host = hostname(),
    private readonly memory = new CorrelatorMemory(),
  ) {}

  forHost(host: string): EventRecorder {
    return new EventsWriter(this.events, this.context, this.component, this.clock, this.log, host, this.memory);
  }

  event(obj: KubeObject, type: EventType, reason: string, message: string, fieldPath?: string): void {
    this.eventAbout(referenceTo(obj, fieldPath), type, reason, message);
  }

  eventAbout(ref: ObjectReference, type: EventType, reason: string, message: string): void {
    // getSpamKey and the aggregator's key (EventAggregatorByReasonFunc) leave the field path out; getEventKey keeps it.
    const objectKey = [this.component, this.host, ref.kind, ref.namespace, ref.name, ref.uid, ref.apiVersion].join('\0');
    if (!this.allow(objectKey)) return;
    const now = this.clock.now();
    const similarKey = [objectKey, type, reason].join('\0');
    let similar = this.memory.similar.get(similarKey);
    if (!similar || now - similar.since > AGGREGATE_INTERVAL_MS) similar = { messages: new Set(), since: now };
    similar.messages.add(message);
    remember(this.memory.similar, similarKey, similar);
    const combined = similar.messages.size > AGGREGATE_MAX_EVENTS;
    const text = combined ? `(combined from similar events): ${message}` : message;
    const key = combined ? similarKey : [similarKey, ref.fieldPath, message].join('\0');
    const at = timestampAt(now / 1000);
    const previous = this.memory.seen.get(key);
    const namespace = ref.namespace || 'default';
    if (previous) {
      previous.count++;
      remember(this.memory.seen, key, previous);
      void this.write(() => this.bump(previous, text, at));
      return;
    }
    const name = `${ref.name}.${(BigInt(now) * 1_000_000n + BigInt(nameSequence)).toString(16)}`;
    nameSequence = (nameSequence + 1) % 1_000_000;
    const seen: Seen = { name, namespace, count: 1, firstTimestamp: at };
    remember(this.memory.seen, key, seen);
    const event: Event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name, namespace },
      involvedObject: ref,
      reason,
      message: text,
      source: { component: this.component, host: this.host },
      firstTimestamp: at,
      lastTimestamp: at,
      count: 1,
      type,
      reportingComponent: this.component,
      reportingInstance: this.host,
    };
    void this.write(async () => {
      try {
        return await this.events.create(this.context(namespace), event, { dryRun: false });
      } catch (err) {
        // client-go's recordEvent updates its cache only with an event the server took: a repeat
        // must not count on an event of that name this writer never made.
        if (this.memory.seen.get(key) === seen) this.memory.seen.delete(key);
        throw err;
      }
    });
  }

  /** The repeat of an event: its count and last time, on the stored event (created again if it is gone). */
  private async bump(seen: Seen, message: string, at: string): Promise<unknown> {
    try {
      return await this.events.update(this.context(seen.namespace), seen.name, (current) => ({ ...current, count: seen.count, message, lastTimestamp: at }), {
        dryRun: false,
      });
    } catch (err) {
      if (!isStatusError(err) || err.code !== 404) throw err;
      return undefined;
    }
  }

  private async write(fn: () => Promise<unknown>): Promise<void> {
    await yieldToBackground();
    try {
      await fn();
    } catch (err) {
      this.log(`event from ${this.component} could not be written`, err);
    }
  }

  /** The spam filter's token bucket of one object and source. */
  private allow(key: string): boolean {
    const now = this.clock.now();
    const bucket = this.memory.buckets.get(key) ?? { tokens: SPAM_BURST, at: now };
    bucket.tokens = Math.min(SPAM_BURST, bucket.tokens + (now - bucket.at) / SPAM_REFILL_MS);
    bucket.at = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    remember(this.memory.buckets, key, bucket);
    return allowed;
  }
}

/** reference.GetReference: the object an event is about; with a field path, reference.GetPartialReference. */
export function referenceTo(obj: KubeObject, fieldPath?: string): ObjectReference {
  const { namespace, name, uid, resourceVersion } = obj.metadata;
  return {
    kind: obj.kind,
    ...(namespace ? { namespace } : {}),
    name,
    uid,
    apiVersion: obj.apiVersion,
    resourceVersion,
    ...(fieldPath ? { fieldPath } : {}),
  };
}
