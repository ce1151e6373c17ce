import type { ObjectStore } from '../../registry/types';
import { jsonEqual } from '../../api/deep-equal';
import { isStatusError } from '../../api/errors';
import { parseLabelSelector, matchesLabels } from '../../api/label-selector';
import type {
  HorizontalPodAutoscaler,
  HorizontalPodAutoscalerCondition,
  HorizontalPodAutoscalerStatus,
  MetricSpec,
  MetricStatus,
  MetricTarget,
} from '../../generated/types/autoscaling/v2';
import type { Pod } from '../../generated/types/core/v1';
import type { KubeObject } from '../../api/types';
import { amountText, milliValue, parseAmount } from '../../admission/resource-quota/amounts';
import { systemReadContext, withInfo } from '../../registry/request-context';
import { QueueController } from '../runtime/controller';
import { CONTROLLER_MANAGER_USER, type ControllerDeps } from '../runtime/controller-deps';
import type { EventRecorder } from '../runtime/event-recorder';
import { type CachedInformer, objectKey } from '../runtime/informer';
import { WorkQueue } from '../work-queue';
import { MetricsError, rawResourceReplicas, resourceReplicas, type ReplicaCalculatorOptions } from './replica-calculator';
import { ResourceMetricsClient } from './resource-metrics';
import { ScaleHistory } from './scale-rules';
import { jsonClone } from '../../api/json-clone';

export interface HpaOptions extends ReplicaCalculatorOptions {
  syncPeriodMs: number;
  downscaleStabilizationMs: number;
}

type Condition = Pick<HorizontalPodAutoscalerCondition, 'type' | 'status' | 'reason' | 'message'>;

/** The autoscaling/v1 Scale of the target, as the scale subresource shows it. */
type ScaleView = KubeObject & { spec?: { replicas?: number }; status?: { replicas?: number; selector?: string } };

/** A failed sync's outcome: the condition kube sets and the error it returns (logged, retried next period). */
class SyncFailure extends Error {}

/** NewMilliQuantity(v, DecimalSI).String(). */
const milliQuantity = (milli: number): string => amountText({ nanos: BigInt(milli) * 1_000_000n, format: 'DecimalSI' });

/**
 * kube-controller-manager's horizontal-pod-autoscaler-controller (pkg/controller/podautoscaler):
 * every sync period, each autoscaling/v2 HPA reads its target's scale, proposes a replica count
 * from the target's pods' resource metrics (metrics.k8s.io through the aggregator), normalises it
 * (stabilisation windows, min and max, rate limits or spec.behavior's policies), rescales the
 * target through its scale subresource and writes its status and conditions. Without a metrics API
 * the conditions say why, with kube's texts.
 */
export class HorizontalPodAutoscalerController extends QueueController {
  readonly name = 'horizontal-pod-autoscaler-controller';
  protected readonly queue: WorkQueue;
  private readonly hpas: ObjectStore;
  private readonly hpaInformer: CachedInformer;
  private readonly podInformer: CachedInformer;
  private readonly recorder: EventRecorder;
  private readonly metrics: ResourceMetricsClient;
  private readonly history: ScaleHistory;
  private readonly wakeups = new Map<string, () => void>();

  constructor(
    private readonly deps: ControllerDeps,
    private readonly opts: HpaOptions,
  ) {
    super();
    this.hpas = deps.store('autoscaling', 'v2', 'horizontalpodautoscalers');
    this.recorder = deps.recorder('horizontal-pod-autoscaler');
    this.metrics = new ResourceMetricsClient(deps.aggregated, CONTROLLER_MANAGER_USER);
    this.history = new ScaleHistory(opts.downscaleStabilizationMs);
    this.queue = new WorkQueue(
      (key) => this.sync(key),
      (key, err) => deps.log(`horizontal pod autoscaler ${key} failed`, err),
      opts.syncPeriodMs,
      deps.clock,
    );
    // enqueueHPA: every HPA is handled once per sync period, the first time one period after it appears.
    this.hpaInformer = deps.informers.informer(
      this.hpas,
      {
        added: (hpa) => this.wakeAfterPeriod(objectKey(hpa)),
        updated: (_, hpa) => this.wakeAfterPeriod(objectKey(hpa), false),
        deleted: (hpa) => this.forget(objectKey(hpa)),
      },
      { name: 'horizontalpodautoscalers' },
    );
    this.podInformer = deps.informers.informer(deps.store('', 'v1', 'pods'), {}, { name: 'pods' });
  }

  protected get informers(): CachedInformer[] {
    return [this.podInformer, this.hpaInformer];
  }

  override stop(): void {
    super.stop();
    for (const cancel of this.wakeups.values()) cancel();
    this.wakeups.clear();
  }

  /** A key is queued one sync period from now, unless (`replace` false) a wakeup is already due. */
  private wakeAfterPeriod(key: string, replace = true): void {
    if (!replace && this.wakeups.has(key)) return;
    this.wakeups.get(key)?.();
    this.wakeups.set(
      key,
      this.deps.clock.after(this.opts.syncPeriodMs, () => {
        this.wakeups.delete(key);
        this.queue.add(key);
      }),
    );
  }

  private forget(key: string): void {
    this.wakeups.get(key)?.();
    this.wakeups.delete(key);
    this.history.forget(key);
  }

  private async sync(key: string): Promise<boolean> {
    const hpa = this.hpaInformer.get(key) as HorizontalPodAutoscaler | undefined;
    if (!hpa) {
      this.forget(key);
      return true;
    }
    try {
      await this.reconcile(jsonClone(hpa), key);
    } catch (err) {
      if (!(err instanceof SyncFailure) && !(isStatusError(err) && err.code === 409)) throw err;
      this.deps.log(`horizontal pod autoscaler ${key}: ${(err as Error).message}`);
    } finally {
      this.wakeAfterPeriod(key);
    }
    return true;
  }

  /** reconcileAutoscaler. */
  private async reconcile(hpa: HorizontalPodAutoscaler, key: string): Promise<void> {
    const original = jsonClone(hpa.status ?? {});
    const status: HorizontalPodAutoscalerStatus = jsonClone(original);
    const spec = hpa.spec ?? {};
    const ref = spec.scaleTargetRef ?? {};
    const reference = `${ref.kind ?? ''}/${hpa.metadata.namespace ?? ''}/${ref.name ?? ''}`;
    const namespace = hpa.metadata.namespace ?? '';
    const failScale = async (reason: string, message: string, error: string): Promise<never> => {
      this.recorder.event(hpa, 'Warning', 'FailedGetScale', message);
      this.setCondition(status, {
        type: 'AbleToScale',
        status: 'False',
        reason,
        message: `the HPA controller was unable to get the target's current scale: ${message}`,
      });
      await this.writeStatusIfNeeded(hpa, original, status);
      throw new SyncFailure(error);
    };
    const [group, version] = (ref.apiVersion ?? '').includes('/') ? (ref.apiVersion ?? '').split('/') : ['', ref.apiVersion ?? ''];
    const store = this.deps.storeOfKind(group, version, ref.kind ?? '');
    if (!store) {
      const message = `no matches for kind "${ref.kind ?? ''}" in group "${group}"`;
      return failScale('FailedGetScale', message, `unable to determine resource for scale target reference: ${message}`);
    }
    let scale: ScaleView;
    try {
      if (!store.def.subresources.includes('scale')) throw new Error(`the server could not find the requested resource`);
      scale = (await store.get(systemReadContext(namespace, 'scale'), ref.name ?? '', { resourceVersion: '', match: '' })) as ScaleView;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return failScale('FailedGetScale', message, `failed to query scale subresource for ${reference}: ${message}`);
    }
    this.setCondition(status, {
      type: 'AbleToScale',
      status: 'True',
      reason: 'SucceededGetScale',
      message: "the HPA controller was able to get the target's current scale",
    });
    const now = this.deps.clock.now();
    const currentReplicas = scale.spec?.replicas ?? 0;
    this.history.recordInitial(key, currentReplicas, now);
    const minReplicas = spec.minReplicas ?? 1;
    const maxReplicas = spec.maxReplicas ?? 0;
    let desiredReplicas = 0;
    let rescaleReason = '';
    let metricStatuses: MetricStatus[] = status.currentMetrics ?? [];
    let rescale = true;
    if (currentReplicas === 0 && minReplicas !== 0) {
      // Autoscaling is disabled for this resource.
      desiredReplicas = 0;
      rescale = false;
      this.setCondition(status, {
        type: 'ScalingActive',
        status: 'False',
        reason: 'ScalingDisabled',
        message: 'scaling is disabled since the replica count of the target is zero',
      });
    } else if (currentReplicas > maxReplicas) {
      rescaleReason = 'Current number of replicas above Spec.MaxReplicas';
      desiredReplicas = maxReplicas;
    } else if (currentReplicas < minReplicas) {
      rescaleReason = 'Current number of replicas below Spec.MinReplicas';
      desiredReplicas = minReplicas;
    } else {
      const computed = await this.replicasForMetrics(hpa, status, scale, spec.metrics ?? []);
      metricStatuses = computed.statuses;
      if (computed.error && computed.replicas === -1) {
        status.currentReplicas = currentReplicas;
        status.currentMetrics = metricStatuses;
        await this.writeStatusIfNeeded(hpa, original, status);
        this.recorder.event(hpa, 'Warning', 'FailedComputeMetricsReplicas', computed.error);
        throw new SyncFailure(`failed to compute desired number of replicas based on listed metrics for ${reference}: ${computed.error}`);
      }
      let rescaleMetric = '';
      if (computed.replicas > desiredReplicas) {
        desiredReplicas = computed.replicas;
        rescaleMetric = computed.metric;
      }
      if (desiredReplicas > currentReplicas) rescaleReason = `${rescaleMetric} above target`;
      if (desiredReplicas < currentReplicas) rescaleReason = 'All metrics below target';
      const normalized = spec.behavior
        ? this.history.normalizeWithBehaviors(key, spec.behavior, currentReplicas, desiredReplicas, minReplicas, maxReplicas, now)
        : this.history.normalize(key, currentReplicas, desiredReplicas, minReplicas, maxReplicas, now);
      this.setCondition(status, { type: 'AbleToScale', ...normalized.ableToScale });
      this.setCondition(status, { type: 'ScalingLimited', ...normalized.scalingLimited });
      desiredReplicas = normalized.replicas;
      rescale = desiredReplicas !== currentReplicas;
    }
    if (rescale) {
      try {
        await store.update(
          withInfo(this.deps.admitted(namespace), { verb: 'update', subresource: 'scale', name: ref.name ?? '' }),
          ref.name ?? '',
          (current) => ({ ...current, spec: { ...(current.spec as object), replicas: desiredReplicas } }),
          { dryRun: false },
        );
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        this.recorder.event(hpa, 'Warning', 'FailedRescale', `New size: ${desiredReplicas}; reason: ${rescaleReason}; error: ${message}`);
        this.setCondition(status, {
          type: 'AbleToScale',
          status: 'False',
          reason: 'FailedUpdateScale',
          message: `the HPA controller was unable to update the target scale: ${message}`,
        });
        status.currentReplicas = currentReplicas;
        status.currentMetrics = metricStatuses;
        await this.writeStatusIfNeeded(hpa, original, status);
        throw new SyncFailure(`failed to rescale ${reference}: ${message}`);
      }
      this.setCondition(status, {
        type: 'AbleToScale',
        status: 'True',
        reason: 'SucceededRescale',
        message: `the HPA controller was able to update the target scale to ${desiredReplicas}`,
      });
      this.recorder.event(hpa, 'Normal', 'SuccessfulRescale', `New size: ${desiredReplicas}; reason: ${rescaleReason}`);
      this.history.recordScale(key, spec.behavior, currentReplicas, desiredReplicas, now);
    } else {
      desiredReplicas = currentReplicas;
    }
    // setStatus.
    status.currentReplicas = currentReplicas;
    status.desiredReplicas = desiredReplicas;
    status.currentMetrics = metricStatuses;
    if (rescale) status.lastScaleTime = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
    await this.writeStatusIfNeeded(hpa, original, status);
  }

  /**
   * computeReplicasForMetrics: the largest proposal of the metrics that could be computed; -1 with
   * the first metric's error when none could, or when some could not and the rest would scale down.
   */
  private async replicasForMetrics(
    hpa: HorizontalPodAutoscaler,
    status: HorizontalPodAutoscalerStatus,
    scale: ScaleView,
    metricSpecs: MetricSpec[],
  ): Promise<{ replicas: number; metric: string; statuses: MetricStatus[]; error: string | null }> {
    const selectorText = scale.status?.selector ?? '';
    if (!selectorText) {
      this.recorder.event(hpa, 'Warning', 'SelectorRequired', 'selector is required');
      this.setCondition(status, { type: 'ScalingActive', status: 'False', reason: 'InvalidSelector', message: "the HPA target's scale is missing a selector" });
      return { replicas: -1, metric: '', statuses: [], error: 'selector is required' };
    }
    let requirements: ReturnType<typeof parseLabelSelector>;
    try {
      requirements = parseLabelSelector(selectorText);
    } catch (err) {
      const message = `couldn't convert selector into a corresponding internal selector object: ${(err as Error).message}`;
      this.recorder.event(hpa, 'Warning', 'InvalidSelector', message);
      this.setCondition(status, { type: 'ScalingActive', status: 'False', reason: 'InvalidSelector', message });
      return { replicas: -1, metric: '', statuses: [], error: message };
    }
    const namespace = hpa.metadata.namespace ?? '';
    const pods = (this.podInformer.list() as Pod[]).filter((p) => p.metadata.namespace === namespace && matchesLabels(requirements, p.metadata.labels));
    const specReplicas = scale.spec?.replicas ?? 0;
    const statuses: MetricStatus[] = [];
    let replicas = 0;
    let metric = '';
    let invalid = 0;
    let firstError: { condition: Condition; error: string } | null = null;
    for (const spec of metricSpecs) {
      const result = await this.replicasForMetric(hpa, spec, specReplicas, selectorText, pods);
      if ('error' in result) {
        statuses.push({});
        if (!firstError) firstError = result;
        invalid++;
        continue;
      }
      statuses.push(result.status);
      if (replicas === 0 || result.replicas > replicas) {
        replicas = result.replicas;
        metric = result.metric;
      }
    }
    if (firstError && (invalid >= metricSpecs.length || replicas < specReplicas)) {
      this.setCondition(status, firstError.condition);
      return {
        replicas: -1,
        metric: '',
        statuses,
        error: `invalid metrics (${invalid} invalid out of ${metricSpecs.length}), first error is: ${firstError.error}`,
      };
    }
    this.setCondition(status, {
      type: 'ScalingActive',
      status: 'True',
      reason: 'ValidMetricFound',
      message: `the HPA was able to successfully calculate a replica count from ${metric}`,
    });
    return { replicas, metric, statuses, error: firstError?.error ?? null };
  }

  /** computeReplicasForMetric for the resource metrics (Resource, ContainerResource); the other sources are not served (docs/divergences.md). */
  private async replicasForMetric(
    hpa: HorizontalPodAutoscaler,
    spec: MetricSpec,
    specReplicas: number,
    selector: string,
    pods: Pod[],
  ): Promise<{ replicas: number; metric: string; status: MetricStatus } | { condition: Condition; error: string }> {
    const unable = (reason: string, error: string) => {
      this.recorder.event(hpa, 'Warning', reason, error);
      return {
        condition: { type: 'ScalingActive', status: 'False', reason, message: `the HPA was unable to compute the replica count: ${error}` } as Condition,
        error,
      };
    };
    if (spec.type === 'Resource' || spec.type === 'ContainerResource') {
      const source = spec.type === 'Resource' ? spec.resource : spec.containerResource;
      const resource = source?.name ?? '';
      const container = spec.type === 'ContainerResource' ? (spec.containerResource?.container ?? '') : '';
      const reason = spec.type === 'Resource' ? 'FailedGetResourceMetric' : 'FailedGetContainerResourceMetric';
      try {
        const computed = await this.resourceProposal(specReplicas, source?.target ?? {}, resource, hpa.metadata.namespace ?? '', selector, container, pods);
        const current = computed.current;
        const status: MetricStatus =
          spec.type === 'Resource'
            ? { type: 'Resource', resource: { name: resource, current } }
            : { type: 'ContainerResource', containerResource: { name: resource, container, current } };
        return { replicas: computed.replicas, metric: computed.metric(spec.type === 'ContainerResource'), status };
      } catch (err) {
        if (!(err instanceof MetricsError)) throw err;
        return unable(reason, err.message);
      }
    }
    const reason = { Object: 'FailedGetObjectMetric', Pods: 'FailedGetPodsMetric', External: 'FailedGetExternalMetric' }[spec.type ?? ''];
    if (!reason) return unable('InvalidMetricSourceType', `unknown metric source type "${spec.type ?? ''}"`);
    return unable(reason, `${spec.type?.toLowerCase() ?? ''} metrics are not supported by kapi`);
  }

  /** computeStatusForResourceMetricGeneric. */
  private async resourceProposal(
    specReplicas: number,
    target: MetricTarget,
    resource: string,
    namespace: string,
    selector: string,
    container: string,
    pods: Pod[],
  ) {
    const fetch = async () => {
      try {
        return await this.metrics.podMetrics(resource, namespace, selector, container);
      } catch (err) {
        throw new MetricsError(`unable to get metrics for resource ${resource}: ${(err as Error).message}`);
      }
    };
    const now = this.deps.clock.now();
    if (target.averageValue !== undefined) {
      const amount = parseAmount(target.averageValue);
      if (!amount) throw new MetricsError(`failed to get ${resource} usage: invalid target ${String(target.averageValue)}`);
      const targetMilli = Number(milliValue(amount));
      let proposal: { replicas: number; rawUtilization: number };
      try {
        const { metrics } = await fetch();
        proposal = rawResourceReplicas(specReplicas, targetMilli, resource, pods, metrics, this.opts, now);
      } catch (err) {
        throw new MetricsError(`failed to get ${resource} usage: ${(err as Error).message}`);
      }
      return {
        replicas: proposal.replicas,
        current: { averageValue: milliQuantity(proposal.rawUtilization) },
        metric: () => `${resource} resource`,
      };
    }
    if (target.averageUtilization === undefined) {
      throw new MetricsError('invalid resource metric source: neither an average utilization target nor an average value (usage) target was set');
    }
    let proposal: ReturnType<typeof resourceReplicas>;
    try {
      const { metrics } = await fetch();
      proposal = resourceReplicas(specReplicas, target.averageUtilization, resource, container, pods, metrics, this.opts, now);
    } catch (err) {
      throw new MetricsError(`failed to get ${resource} utilization: ${(err as Error).message}`);
    }
    return {
      replicas: proposal.replicas,
      current: { averageUtilization: proposal.utilization, averageValue: milliQuantity(proposal.rawUtilization) },
      metric: (perContainer: boolean) =>
        perContainer ? `${resource} container resource utilization (percentage of request)` : `${resource} resource utilization (percentage of request)`,
    };
  }

  /** setConditionInList: a changed status moves the transition time; reason and message are always the latest. */
  private setCondition(status: HorizontalPodAutoscalerStatus, condition: Condition): void {
    const conditions = (status.conditions ??= []);
    const now = new Date(this.deps.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    let existing = conditions.find((c) => c.type === condition.type);
    if (!existing) {
      existing = { type: condition.type, lastTransitionTime: now };
      conditions.push(existing);
    }
    if (existing.status !== condition.status) existing.lastTransitionTime = now;
    existing.status = condition.status;
    existing.reason = condition.reason;
    existing.message = condition.message;
  }

  /** updateStatusIfNeeded: a status write only when something changed. */
  private async writeStatusIfNeeded(
    hpa: HorizontalPodAutoscaler,
    original: HorizontalPodAutoscalerStatus,
    status: HorizontalPodAutoscalerStatus,
  ): Promise<void> {
    if (jsonEqual(original, status)) return;
    const ctx = withInfo(this.deps.own(hpa.metadata.namespace ?? ''), { subresource: 'status' });
    try {
      await this.hpas.update(ctx, hpa.metadata.name ?? '', { ...hpa, status }, { dryRun: false });
    } catch (err) {
      this.recorder.event(hpa, 'Warning', 'FailedUpdateStatus', err instanceof Error ? err.message : String(err));
      throw new SyncFailure(`failed to update status for ${hpa.metadata.name ?? ''}: ${(err as Error).message}`);
    }
  }
}
