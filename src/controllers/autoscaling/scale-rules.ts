import type { HPAScalingRules, HorizontalPodAutoscalerBehavior } from '../../generated/types/autoscaling/v2';

/** A condition the normalisation sets on the HPA: its reason and message (and, for ScalingLimited, whether it holds). */
export interface NormalizedCondition {
  status: 'True' | 'False';
  reason: string;
  message: string;
}

export interface Normalized {
  replicas: number;
  ableToScale: NormalizedCondition;
  scalingLimited: NormalizedCondition;
}

interface Recommendation {
  replicas: number;
  atMs: number;
}

interface ScaleEvent {
  change: number;
  atMs: number;
  outdated: boolean;
}

// calculateScaleUpLimit: without behaviors, at most double (and at least four) per sync.
const SCALE_UP_LIMIT_FACTOR = 2.0;
const SCALE_UP_LIMIT_MINIMUM = 4.0;
const INT32_MAX = 2 ** 31 - 1;
const INT32_MIN = -(2 ** 31);

const READY_FOR_NEW_SCALE: NormalizedCondition = { status: 'True', reason: 'ReadyForNewScale', message: 'recommended size matches current size' };
const WITHIN_RANGE = { reason: 'DesiredWithinRange', message: 'the desired count is within the acceptable range' };

/**
 * What the HPA controller remembers of each autoscaler between syncs (its recommendations and
 * scale events, in memory as kube's are) and the normalisation of a metric's proposal with them:
 * normalizeDesiredReplicas without spec.behavior, normalizeDesiredReplicasWithBehaviors with it.
 */
export class ScaleHistory {
  private readonly recommendations = new Map<string, Recommendation[]>();
  private readonly scaleUpEvents = new Map<string, ScaleEvent[]>();
  private readonly scaleDownEvents = new Map<string, ScaleEvent[]>();

  constructor(private readonly downscaleStabilizationMs: number) {}

  forget(key: string): void {
    this.recommendations.delete(key);
    this.scaleUpEvents.delete(key);
    this.scaleDownEvents.delete(key);
  }

  /** recordInitialRecommendation: the first sync remembers the current size, so a new HPA does not scale down at once. */
  recordInitial(key: string, currentReplicas: number, nowMs: number): void {
    if (!this.recommendations.has(key)) this.recommendations.set(key, [{ replicas: currentReplicas, atMs: nowMs }]);
  }

  /** normalizeDesiredReplicas: the highest recommendation of the stabilisation window, within min, max and the scale-up limit. */
  normalize(key: string, current: number, proposed: number, min: number, max: number, nowMs: number): Normalized {
    const stabilized = this.stabilize(key, proposed, nowMs);
    const ableToScale: NormalizedCondition =
      stabilized !== proposed
        ? {
            status: 'True',
            reason: 'ScaleDownStabilized',
            message: 'recent recommendations were higher than current one, applying the highest recent recommendation',
          }
        : READY_FOR_NEW_SCALE;
    const { replicas, reason, message } = withRules(current, stabilized, min, max);
    return { replicas, ableToScale, scalingLimited: { status: replicas === stabilized ? 'False' : 'True', reason, message } };
  }

  /** normalizeDesiredReplicasWithBehaviors: stabilised within both windows, then limited by the policies' rates. */
  normalizeWithBehaviors(
    key: string,
    behavior: HorizontalPodAutoscalerBehavior,
    current: number,
    proposed: number,
    min: number,
    max: number,
    nowMs: number,
  ): Normalized {
    const up = behavior.scaleUp ?? {};
    // maybeInitScaleDownStabilizationWindow: an unset window is the controller's flag.
    const down: HPAScalingRules = {
      ...behavior.scaleDown,
      stabilizationWindowSeconds: behavior.scaleDown?.stabilizationWindowSeconds ?? this.downscaleStabilizationMs / 1000,
    };
    const stabilized = this.stabilizeWithBehaviors(key, up, down, current, proposed, nowMs);
    const ableToScale: NormalizedCondition =
      stabilized === proposed
        ? READY_FOR_NEW_SCALE
        : proposed >= current
          ? {
              status: 'True',
              reason: 'ScaleUpStabilized',
              message: 'recent recommendations were lower than current one, applying the lowest recent recommendation',
            }
          : {
              status: 'True',
              reason: 'ScaleDownStabilized',
              message: 'recent recommendations were higher than current one, applying the highest recent recommendation',
            };
    const { replicas, reason, message } = this.withBehaviorRate(key, up, down, current, stabilized, min, max, nowMs);
    return { replicas, ableToScale, scalingLimited: { status: replicas === stabilized ? 'False' : 'True', reason, message } };
  }

  /** storeScaleEvent: a rescale, counted against the policies' periods (only with behaviors). */
  recordScale(key: string, behavior: HorizontalPodAutoscalerBehavior | undefined, previous: number, next: number, nowMs: number): void {
    if (!behavior) return;
    const scalingUp = next > previous;
    const rules = (scalingUp ? behavior.scaleUp : behavior.scaleDown) ?? {};
    const events = scalingUp ? this.scaleUpEvents : this.scaleDownEvents;
    const list = events.get(key) ?? [];
    const longest = Math.max(0, ...(rules.policies ?? []).map((p) => p.periodSeconds ?? 0));
    for (const e of list) if (e.atMs < nowMs - longest * 1000) e.outdated = true;
    const event = { change: Math.abs(next - previous), atMs: nowMs, outdated: false };
    let reuse = -1;
    list.forEach((e, i) => {
      if (e.outdated) reuse = i;
    });
    if (reuse >= 0) list[reuse] = event;
    else list.push(event);
    events.set(key, list);
  }

  /** stabilizeRecommendation: the highest recommendation within the downscale window; the proposal is remembered. */
  private stabilize(key: string, proposed: number, nowMs: number): number {
    const list = this.recommendations.get(key) ?? [];
    const cutoff = nowMs - this.downscaleStabilizationMs;
    let max = proposed;
    let old = -1;
    list.forEach((rec, i) => {
      if (rec.atMs < cutoff) old = i;
      else if (rec.replicas > max) max = rec.replicas;
    });
    this.remember(key, list, old, proposed, nowMs);
    return max;
  }

  /** stabilizeRecommendationWithBehaviors: the current size, raised to the lowest recent proposal, lowered to the highest. */
  private stabilizeWithBehaviors(key: string, up: HPAScalingRules, down: HPAScalingRules, current: number, proposed: number, nowMs: number): number {
    const list = this.recommendations.get(key) ?? [];
    const upCutoff = nowMs - (up.stabilizationWindowSeconds ?? 0) * 1000;
    const downCutoff = nowMs - (down.stabilizationWindowSeconds ?? 0) * 1000;
    let upRecommendation = proposed;
    let downRecommendation = proposed;
    let old = -1;
    list.forEach((rec, i) => {
      if (rec.atMs > upCutoff) upRecommendation = Math.min(rec.replicas, upRecommendation);
      if (rec.atMs > downCutoff) downRecommendation = Math.max(rec.replicas, downRecommendation);
      if (rec.atMs < upCutoff && rec.atMs < downCutoff) old = i;
    });
    let recommendation = current;
    if (recommendation < upRecommendation) recommendation = upRecommendation;
    if (recommendation > downRecommendation) recommendation = downRecommendation;
    this.remember(key, list, old, proposed, nowMs);
    return recommendation;
  }

  /** The proposal replaces a recommendation older than the window, else joins the list. */
  private remember(key: string, list: Recommendation[], old: number, proposed: number, nowMs: number): void {
    const rec = { replicas: proposed, atMs: nowMs };
    if (old >= 0) list[old] = rec;
    else list.push(rec);
    this.recommendations.set(key, list);
  }

  /** convertDesiredReplicasWithBehaviorRate. */
  private withBehaviorRate(key: string, up: HPAScalingRules, down: HPAScalingRules, current: number, desired: number, min: number, max: number, nowMs: number) {
    const ups = this.scaleUpEvents.get(key) ?? [];
    const downs = this.scaleDownEvents.get(key) ?? [];
    if (desired > current) {
      const limit = Math.max(scaleUpLimit(current, ups, downs, up, nowMs), current);
      const [allowed, reason, message] =
        max > limit
          ? [limit, 'ScaleUpLimit', 'the desired replica count is increasing faster than the maximum scale rate']
          : [max, 'TooManyReplicas', 'the desired replica count is more than the maximum replica count'];
      if (desired > allowed) return { replicas: allowed, reason, message };
    } else if (desired < current) {
      const limit = Math.min(scaleDownLimit(current, ups, downs, down, nowMs), current);
      const [allowed, reason, message] =
        min < limit
          ? [limit, 'ScaleDownLimit', 'the desired replica count is decreasing faster than the maximum scale rate']
          : [min, 'TooFewReplicas', 'the desired replica count is less than the minimum replica count'];
      if (desired < allowed) return { replicas: allowed, reason, message };
    }
    return { replicas: desired, ...WITHIN_RANGE };
  }
}

/** convertDesiredReplicasWithRules: within min and max, and no more than the scale-up limit at once. */
function withRules(current: number, desired: number, min: number, max: number) {
  const limit = Math.trunc(Math.max(SCALE_UP_LIMIT_FACTOR * current, SCALE_UP_LIMIT_MINIMUM));
  const [maxAllowed, reason, message] =
    max > limit
      ? [limit, 'ScaleUpLimit', 'the desired replica count is increasing faster than the maximum scale rate']
      : [max, 'TooManyReplicas', 'the desired replica count is more than the maximum replica count'];
  if (desired < min) return { replicas: min, reason: 'TooFewReplicas', message: 'the desired replica count is less than the minimum replica count' };
  if (desired > maxAllowed) return { replicas: maxAllowed, reason, message };
  return { replicas: desired, ...WITHIN_RANGE };
}

/** getReplicasChangePerPeriod: the replicas a direction's events changed within the period. */
function changedWithin(events: ScaleEvent[], periodSeconds: number, nowMs: number): number {
  const cutoff = nowMs - periodSeconds * 1000;
  return events.reduce((sum, e) => (e.atMs > cutoff ? sum + e.change : sum), 0);
}

/** calculateScaleUpLimitWithScalingRules: each policy's allowance from the size at its period's start, the largest (or smallest) chosen. */
function scaleUpLimit(current: number, ups: ScaleEvent[], downs: ScaleEvent[], rules: HPAScalingRules, nowMs: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const pick = rules.selectPolicy === 'Min' ? Math.min : Math.max;
  let result = rules.selectPolicy === 'Min' ? INT32_MAX : INT32_MIN;
  for (const policy of rules.policies ?? []) {
    const start = current - changedWithin(ups, policy.periodSeconds ?? 0, nowMs) + changedWithin(downs, policy.periodSeconds ?? 0, nowMs);
    // A percentage rounds up, or a small target would never grow.
    const proposed = policy.type === 'Pods' ? start + (policy.value ?? 0) : Math.ceil(start * (1 + (policy.value ?? 0) / 100));
    result = pick(result, proposed);
  }
  return result;
}

/** calculateScaleDownLimitWithBehaviors: as the scale-up limit, downwards (Min picks the highest floor). */
function scaleDownLimit(current: number, ups: ScaleEvent[], downs: ScaleEvent[], rules: HPAScalingRules, nowMs: number): number {
  if (rules.selectPolicy === 'Disabled') return current;
  const pick = rules.selectPolicy === 'Min' ? Math.max : Math.min;
  let result = rules.selectPolicy === 'Min' ? INT32_MIN : INT32_MAX;
  for (const policy of rules.policies ?? []) {
    const start = current - changedWithin(ups, policy.periodSeconds ?? 0, nowMs) + changedWithin(downs, policy.periodSeconds ?? 0, nowMs);
    const proposed = policy.type === 'Pods' ? start - (policy.value ?? 0) : Math.trunc(start * (1 - (policy.value ?? 0) / 100));
    result = pick(result, proposed);
  }
  return result;
}
