import type { DaemonSet } from '../../generated/types/apps/v1';
import type {
  Affinity,
  Node,
  NodeSelectorRequirement,
  NodeSelectorTerm,
  Pod,
  PodSpec,
  PodTemplateSpec,
  Taint,
  Toleration,
} from '../../generated/types/core/v1';
import { POD_REVISION_LABEL } from './controller-history';
import { TEMPLATE_GENERATION_ANNOTATION } from '../../resources/daemonset-template-generation';
import { jsonClone } from '../../api/json-clone';

/** extensions.DaemonSetTemplateGenerationKey: the pod label of the template generation it was made from. */
export const TEMPLATE_GENERATION_LABEL = 'pod-template-generation';

/**
 * AddOrUpdateDaemonPodTolerations: a daemon pod stays on a node that is not ready, unreachable,
 * under pressure or cordoned; a host-network one also where the network is not set up.
 */
const DAEMON_TOLERATIONS: Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
];
const NETWORK_UNAVAILABLE: Toleration = { key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' };

/** Toleration.MatchToleration: the same key, operator, value and effect. */
const sameToleration = (a: Toleration, b: Toleration): boolean =>
  (a.key ?? '') === (b.key ?? '') && (a.operator ?? '') === (b.operator ?? '') && (a.value ?? '') === (b.value ?? '') && (a.effect ?? '') === (b.effect ?? '');

export function addDaemonTolerations(spec: PodSpec): void {
  const wanted = spec.hostNetwork ? [...DAEMON_TOLERATIONS, NETWORK_UNAVAILABLE] : DAEMON_TOLERATIONS;
  const tolerations = [...(spec.tolerations ?? [])];
  for (const toleration of wanted) {
    const at = tolerations.findIndex((t) => sameToleration(t, toleration));
    if (at < 0) tolerations.push({ ...toleration });
    else tolerations[at] = { ...toleration };
  }
  spec.tolerations = tolerations;
}

/** ReplaceDaemonSetPodNodeNameNodeAffinity: the required node affinity becomes `metadata.name In [node]`, the rest of the affinity kept. */
export function withNodeNameAffinity(affinity: Affinity | undefined, nodeName: string): Affinity {
  const term: NodeSelectorTerm = { matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] };
  const next = jsonClone(affinity ?? {});
  next.nodeAffinity ??= {};
  next.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = {
    ...next.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution,
    nodeSelectorTerms: [term],
  };
  return next;
}

/** CreatePodTemplate: the template with the daemon tolerations, the template generation and the revision hash labels. */
export function daemonPodTemplate(ds: DaemonSet, hash: string): PodTemplateSpec {
  const template: PodTemplateSpec = jsonClone(ds.spec?.template ?? { metadata: {} });
  template.spec ??= {};
  addDaemonTolerations(template.spec);
  template.metadata ??= {};
  const generation = ds.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION];
  template.metadata.labels = {
    ...template.metadata.labels,
    ...(generation !== undefined ? { [TEMPLATE_GENERATION_LABEL]: generation } : {}),
    ...(hash ? { [POD_REVISION_LABEL]: hash } : {}),
  };
  return template;
}

/** util.GetTargetNodeName: spec.nodeName, or the node a daemon pod's `metadata.name In [node]` affinity names. */
export function targetNodeName(pod: Pod): string | null {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  for (const term of pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []) {
    for (const field of term.matchFields ?? []) {
      if (field.key === 'metadata.name' && field.operator === 'In' && field.values?.length === 1) return field.values[0]!;
    }
  }
  return null;
}

/** Toleration.ToleratesTaint. */
function tolerates(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  if (toleration.operator === 'Exists') return true;
  return (toleration.value ?? '') === (taint.value ?? '');
}

/** The first taint of those `applies` picks that no toleration tolerates (FindMatchingUntoleratedTaint). */
const untolerated = (taints: Taint[], tolerations: Toleration[], applies: (taint: Taint) => boolean): Taint | undefined =>
  taints.find((taint) => applies(taint) && !tolerations.some((t) => tolerates(t, taint)));

/** A NodeSelectorRequirement against a node's labels or (matchFields) its name. */
function requirementMatches(req: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = req.values ?? [];
  switch (req.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      if (value === undefined || values.length !== 1 || !/^-?\d+$/.test(value) || !/^-?\d+$/.test(values[0]!)) return false;
      return req.operator === 'Gt' ? BigInt(value) > BigInt(values[0]!) : BigInt(value) < BigInt(values[0]!);
    }
    default:
      return false;
  }
}

/** A term matches when all its requirements do; a term with none matches nothing. */
function termMatches(term: NodeSelectorTerm, node: Node): boolean {
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (expressions.length === 0 && fields.length === 0) return false;
  return (
    expressions.every((req) => requirementMatches(req, node.metadata.labels?.[req.key ?? ''])) &&
    fields.every((req) => req.key === 'metadata.name' && requirementMatches(req, node.metadata.name))
  );
}

/** nodeaffinity.GetRequiredNodeAffinity(pod).Match: the nodeSelector and any one required term. */
function fitsNodeAffinity(spec: PodSpec, node: Node): boolean {
  const labels = node.metadata.labels ?? {};
  if (!Object.entries(spec.nodeSelector ?? {}).every(([key, value]) => labels[key] === value)) return false;
  const terms = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  return terms === undefined || terms.some((term) => termMatches(term, node));
}

const blocksScheduling = (taint: Taint): boolean => taint.effect === 'NoSchedule' || taint.effect === 'NoExecute';

/**
 * NodeShouldRunDaemonPod: whether a daemon pod belongs on the node (its node name, node affinity
 * and taints allow it), and whether one already there may stay (only an untolerated NoExecute
 * taint, or a node it does not fit, sends it away).
 */
export function nodeShouldRunDaemonPod(node: Node, ds: DaemonSet): { shouldRun: boolean; shouldContinueRunning: boolean } {
  const spec = jsonClone(ds.spec?.template?.spec ?? {});
  if (spec.nodeName && spec.nodeName !== node.metadata.name) return { shouldRun: false, shouldContinueRunning: false };
  // NewPod: the template's own affinity decides (the pods made carry only the node-name term).
  addDaemonTolerations(spec);
  if (!fitsNodeAffinity(spec, node)) return { shouldRun: false, shouldContinueRunning: false };
  const taints = node.spec?.taints ?? [];
  const tolerations = spec.tolerations ?? [];
  if (untolerated(taints, tolerations, blocksScheduling)) {
    return { shouldRun: false, shouldContinueRunning: !untolerated(taints, tolerations, (t) => t.effect === 'NoExecute') };
  }
  return { shouldRun: true, shouldContinueRunning: true };
}
