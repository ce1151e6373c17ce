import type { MaybePromise } from '../../api/maybe-promise';
import { jsonEqual } from '../../api/deep-equal';
import { aggregateMessage, fieldErrorMessage, goQuote, type FieldErrorList } from '../../api/field-errors';
import { forbidden, internalError, invalid, type StatusError } from '../../api/errors';
import { objectsIn } from '../../api/json-read';
import { isPlainObject, type KubeObject } from '../../api/types';
import type { RequestContext } from '../../registry/request-context';
import type { AdmissionAttributes, AdmissionPlugin } from '../admission';
import type { Obj } from './check-helpers';
import { evaluatePod, forbiddenDetail, forbiddenReason } from './evaluator';
import {
  AUDIT_ANNOTATION_PREFIX,
  compareLevels,
  fullyPrivileged,
  levelVersionText,
  policyFromLabels,
  sameLevelVersion,
  type LevelVersion,
  type NamespacePolicy,
} from './levels';
import { podParts, templateExtractor, type PodParts } from './pod-specs';

/** Where the plugin reads namespaces and a namespace's pods (kube's informers: the watch caches here). */
export interface PodSecuritySource {
  namespace(name: string): MaybePromise<KubeObject | null>;
  pods(namespace: string): MaybePromise<KubeObject[]>;
}

const PODS = { group: '', resource: 'pods' };
/** Pod subresources PodSecurity never looks at (ignoredPodSubresources). */
const IGNORED_POD_SUBRESOURCES = new Set(['exec', 'attach', 'binding', 'eviction', 'log', 'portforward', 'proxy', 'status']);
/** How many existing pods, and for how long, a namespace update checks (defaultNamespaceMaxPodsToCheck, defaultNamespacePodCheckTimeout). */
const NAMESPACE_MAX_PODS_TO_CHECK = 3000;
const NAMESPACE_POD_CHECK_MS = 1000;

const labelsOf = (o: KubeObject | undefined): Record<string, string> | undefined => o?.metadata.labels;
const specOf = (o: KubeObject | undefined): Obj => (o && isPlainObject(o.spec) ? o.spec : {});

/** isSignificantPodUpdate: only a change of images or of the containers themselves is evaluated again. */
function significantPodUpdate(pod: KubeObject, old: KubeObject): boolean {
  const spec = specOf(pod);
  const prev = specOf(old);
  for (const key of ['containers', 'initContainers']) {
    const now = objectsIn(spec[key]);
    const before = objectsIn(prev[key]);
    if (now.length !== before.length) return true;
    if (now.some((c, i) => c.image !== before[i].image)) return true;
  }
  const oldEphemeral = objectsIn(prev.ephemeralContainers);
  return objectsIn(spec.ephemeralContainers).some((c) => {
    const match = oldEphemeral.find((o) => o.name === c.name);
    return !match || match.image !== c.image;
  });
}

/** The pod's controller's uid, if it has one (metav1.GetControllerOf). */
const controllerUid = (pod: KubeObject): string | undefined => pod.metadata.ownerReferences?.find((ref) => ref.controller === true)?.uid;

/** prioritizePods: one pod of each controller first, the other replicas last. */
function prioritized(pods: KubeObject[]): KubeObject[] {
  const first: KubeObject[] = [];
  const replicas: KubeObject[] = [];
  const seen = new Set<string>();
  for (const pod of pods) {
    const uid = controllerUid(pod);
    if (uid === undefined) first.push(pod);
    else if (seen.has(uid)) replicas.push(pod);
    else {
      seen.add(uid);
      first.push(pod);
    }
  }
  return [...first, ...replicas];
}

/**
 * PodSecurity (k8s.io/pod-security-admission's Admission, as kube-apiserver's plugin runs it):
 * pods are checked against their namespace's enforce, audit and warn levels on create and on
 * updates that change images; workload templates only warn and audit; a namespace's labels must
 * parse, and a stricter enforce level warns about the pods already there. No exemptions: kube's
 * defaults, and kapi reads no AdmissionConfiguration (docs/divergences.md).
 */
export class PodSecurityAdmission implements AdmissionPlugin {
  readonly name = 'PodSecurity';

  constructor(private readonly source: PodSecuritySource) {}

  validate(attrs: AdmissionAttributes): Promise<void> | void {
    if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return;
    const { group, resource } = attrs.def;
    if (!group && resource === 'namespaces') return this.validateNamespace(attrs);
    if (!group && resource === 'pods') return this.validatePod(attrs);
    const extract = templateExtractor(group, resource);
    if (extract) return this.validateTemplate(attrs, extract);
  }

  /** ValidateNamespace. */
  private async validateNamespace(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.subresource !== '' || !attrs.object) return;
    const next = policyFromLabels(labelsOf(attrs.object));
    const refuse = (errors: FieldErrorList): StatusError => invalid({ group: attrs.kind.group, kind: attrs.kind.kind }, attrs.name, errors);
    if (attrs.operation === 'CREATE') {
      if (next.errors.length > 0) throw refuse(next.errors);
      return;
    }
    const prev = policyFromLabels(labelsOf(attrs.oldObject));
    if (next.errors.length > 0 && (prev.errors.length === 0 || !jsonEqual(next.errors, prev.errors))) throw refuse(next.errors);
    const [now, before] = [next.policy.enforce, prev.policy.enforce];
    if (sameLevelVersion(now, before) || now.level === 'privileged') return;
    if (now.version === before.version && compareLevels(now.level, before.level) < 1) return;
    const name = attrs.object.metadata.name ?? attrs.name;
    for (const warning of await this.existingPodWarnings(attrs.request, name, now)) attrs.request.warn(warning);
  }

  /** EvaluatePodsInNamespace: the existing pods' violations of a new enforce level, one warning per distinct set of reasons. */
  private async existingPodWarnings(ctx: RequestContext, namespace: string, enforce: LevelVersion): Promise<string[]> {
    const started = Date.now();
    const budget = ctx.deadline === null ? NAMESPACE_POD_CHECK_MS : Math.min(NAMESPACE_POD_CHECK_MS, (ctx.deadline - started) / 2);
    let pods: KubeObject[];
    try {
      pods = prioritized(await this.source.pods(namespace));
    } catch {
      return ['failed to list pods while checking new PodSecurity enforce level'];
    }
    const total = pods.length;
    let checked = Math.min(total, NAMESPACE_MAX_PODS_TO_CHECK);
    const byReason = new Map<string, { pod: string; count: number }>();
    for (let i = 0; i < checked; i++) {
      const pod = pods[i];
      const violations = evaluatePod(enforce, pod.metadata as unknown as Obj, specOf(pod));
      if (violations.length > 0) {
        const reason = forbiddenReason(violations);
        const name = pod.metadata.name ?? '';
        const seen = byReason.get(reason);
        if (!seen) byReason.set(reason, { pod: name, count: 1 });
        else byReason.set(reason, { pod: name < seen.pod ? name : seen.pod, count: seen.count + 1 });
      }
      if (Date.now() - started >= budget) {
        checked = i + 1;
        break;
      }
    }
    const warnings: string[] = [];
    if (checked < total) warnings.push(`new PodSecurity enforce level only checked against the first ${checked} of ${total} existing pods`);
    if (byReason.size > 0)
      warnings.push(`existing pods in namespace ${goQuote(namespace)} violate the new PodSecurity enforce level ${goQuote(levelVersionText(enforce))}`);
    const decorated = [...byReason].map(([reason, { pod, count }]) => {
      if (count === 1) return `${pod}: ${reason}`;
      return `${pod} (and ${count - 1} other ${count === 2 ? 'pod' : 'pods'}): ${reason}`;
    });
    return [...warnings, ...decorated.sort()];
  }

  /** ValidatePod. */
  private async validatePod(attrs: AdmissionAttributes): Promise<void> {
    if (IGNORED_POD_SUBRESOURCES.has(attrs.subresource) || !attrs.object) return;
    const ns = await this.source.namespace(attrs.namespace);
    if (!ns) {
      const err = internalError(`failed to lookup namespace ${goQuote(attrs.namespace)}`);
      attrs.request.auditAnnotations.set(`${AUDIT_ANNOTATION_PREFIX}error`, err.message);
      throw err;
    }
    const { policy, errors } = policyFromLabels(labelsOf(ns));
    if (errors.length === 0 && fullyPrivileged(policy)) {
      attrs.request.auditAnnotations.set(`${AUDIT_ANNOTATION_PREFIX}enforce-policy`, 'privileged:latest');
      return;
    }
    if (attrs.operation === 'UPDATE' && attrs.oldObject && !significantPodUpdate(attrs.object, attrs.oldObject)) return;
    this.evaluate(attrs, policy, errors, podParts(attrs.object), true);
  }

  /** ValidatePodController: workload templates are warned and audited, never refused. */
  private async validateTemplate(attrs: AdmissionAttributes, extract: (o: KubeObject) => PodParts | null): Promise<void> {
    if (attrs.subresource !== '' || !attrs.object) return;
    const ns = await this.source.namespace(attrs.namespace);
    if (!ns) {
      attrs.request.auditAnnotations.set(
        `${AUDIT_ANNOTATION_PREFIX}error`,
        `failed to lookup namespace ${goQuote(attrs.namespace)}: namespaces ${goQuote(attrs.namespace)} not found`,
      );
      return;
    }
    const { policy, errors } = policyFromLabels(labelsOf(ns));
    if (errors.length === 0 && policy.warn.level === 'privileged' && policy.audit.level === 'privileged') return;
    const parts = extract(attrs.object);
    if (parts) this.evaluate(attrs, policy, errors, parts, false);
  }

  /** EvaluatePod: enforce (pods only), then audit, then warn when allowed; each level and version evaluated once. */
  private evaluate(attrs: AdmissionAttributes, policy: NamespacePolicy, policyErrors: FieldErrorList, parts: PodParts, enforce: boolean): void {
    const annotations = new Map<string, string>();
    if (policyErrors.length > 0) annotations.set('error', `Failed to parse policy: ${aggregateMessage(policyErrors.map(fieldErrorMessage))}`);
    const results = new Map<string, ReturnType<typeof evaluatePod>>();
    const resultOf = (lv: LevelVersion): ReturnType<typeof evaluatePod> => {
      const key = levelVersionText(lv);
      let result = results.get(key);
      if (!result) results.set(key, (result = evaluatePod(lv, parts.meta, parts.spec)));
      return result;
    };
    let refusal: StatusError | null = null;
    if (enforce) {
      annotations.set('enforce-policy', levelVersionText(policy.enforce));
      const violations = resultOf(policy.enforce);
      if (violations.length > 0)
        refusal = forbidden(PODS, attrs.name, `violates PodSecurity ${goQuote(levelVersionText(policy.enforce))}: ${forbiddenDetail(violations)}`);
    }
    const audit = resultOf(policy.audit);
    if (audit.length > 0)
      annotations.set('audit-violations', `would violate PodSecurity ${goQuote(levelVersionText(policy.audit))}: ${forbiddenDetail(audit)}`);
    if (!refusal) {
      const warn = resultOf(policy.warn);
      if (warn.length > 0) attrs.request.warn(`would violate PodSecurity ${goQuote(levelVersionText(policy.warn))}: ${forbiddenDetail(warn)}`);
    }
    for (const [key, value] of annotations) attrs.request.auditAnnotations.set(`${AUDIT_ANNOTATION_PREFIX}${key}`, value);
    if (refusal) throw refusal;
  }
}
