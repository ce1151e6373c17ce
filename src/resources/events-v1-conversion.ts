import type { KubeObject } from '../api/types';

/**
 * events.k8s.io/v1 Events as views of the stored core/v1 Events, converted field by field as
 * kube-apiserver converts them (pkg/apis/events/v1/conversion.go): seven fields change names,
 * the rest (metadata, eventTime, series, action, reason, related, type, reportingInstance)
 * carry over as they are, so a round trip either way loses nothing.
 */

/** events.k8s.io/v1 name → core/v1 name. */
const V1_TO_CORE: Record<string, string> = {
  regarding: 'involvedObject',
  note: 'message',
  deprecatedSource: 'source',
  deprecatedFirstTimestamp: 'firstTimestamp',
  deprecatedLastTimestamp: 'lastTimestamp',
  deprecatedCount: 'count',
  reportingController: 'reportingComponent',
};

const CORE_TO_V1: Record<string, string> = Object.fromEntries(Object.entries(V1_TO_CORE).map(([v1, core]) => [core, v1]));

function renamed(obj: KubeObject, names: Record<string, string>): KubeObject {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) out[names[key] ?? key] = value;
  return out as KubeObject;
}

/** An events.k8s.io/v1 Event as the core/v1 Event kapi stores. */
export function coreEventFromV1(event: KubeObject): KubeObject {
  return renamed(event, V1_TO_CORE);
}

/** A stored core/v1 Event as events.k8s.io/v1 shows it. */
export function v1EventFromCore(event: KubeObject): KubeObject {
  return renamed(event, CORE_TO_V1);
}
