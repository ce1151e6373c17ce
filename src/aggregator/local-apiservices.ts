import { isStatusError } from '../api/errors';
import type { KubeObject } from '../api/types';
import type { Controller } from '../controllers/runtime/controller';
import type { GenericStore } from '../registry/generic-store';
import { systemContext, SERVER_OWN_WRITE } from '../registry/request-context';
import type { ResourceRegistry } from '../registry/resource-registry';
import { APIREGISTRATION_GROUP } from '../resources/apiservices';
import type { Logger } from '../server/logger';
import type { ApiServiceIndex } from './apiservice-index';

/** autoregister's label: `onstart` for the server's own group-versions, `true` for CRDs' (removed with them). */
export const AUTOMANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged';

/** kube-apiserver's apiVersionPriorities (aggregator.go) for the group-versions kapi serves: [groupPriorityMinimum, versionPriority]. */
const PRIORITIES: Record<string, [number, number]> = {
  '/v1': [18000, 1],
  [`${APIREGISTRATION_GROUP}/v1`]: [18000, 15],
  'apps/v1': [17800, 15],
  'events.k8s.io/v1': [17750, 15],
  'authentication.k8s.io/v1': [17700, 15],
  'authorization.k8s.io/v1': [17600, 15],
  'autoscaling/v1': [17500, 15],
  'autoscaling/v2': [17500, 30],
  'batch/v1': [17400, 15],
  'certificates.k8s.io/v1': [17300, 15],
  'networking.k8s.io/v1': [17200, 15],
  'policy/v1': [17100, 15],
  'rbac.authorization.k8s.io/v1': [17000, 15],
  'storage.k8s.io/v1': [16800, 15],
  'admissionregistration.k8s.io/v1': [16700, 15],
  'apiextensions.k8s.io/v1': [16700, 15],
  'scheduling.k8s.io/v1': [16600, 15],
  'coordination.k8s.io/v1': [16500, 15],
  'node.k8s.io/v1': [16300, 15],
  'discovery.k8s.io/v1': [16200, 15],
  'flowcontrol.apiserver.k8s.io/v1': [16100, 21],
  'resource.k8s.io/v1': [15900, 15],
};
/** crdregistration_controller's priorities: CRDs rank low, versions ordered kube-like among equals. */
const CRD_PRIORITY: [number, number] = [1000, 100];
/** What a built-in group-version missing from the table gets. */
const DEFAULT_PRIORITY: [number, number] = [15000, 15];

const POLL_MS = 1000;

/**
 * autoregister and crdregistration in one (leader only): a local APIService (no service, so
 * Available "Local") for every group-version kapi serves, built-in ones labelled `onstart`, each
 * CRD group-version labelled `true` and deleted once no CRD serves it. The registry is compared
 * with the APIServices every second (kapi's CRD controller tells no one when it serves a version).
 */
export class LocalApiServices implements Controller {
  readonly name = 'autoregister-completion';
  private timer: NodeJS.Timeout | null = null;
  private lastError = '';
  private busy = false;

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly builtIn: Set<string>,
    private readonly index: ApiServiceIndex,
    private readonly apiServices: GenericStore,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    await this.sync();
    this.timer = setInterval(() => void this.sync(), POLL_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  problem(): string | null {
    return this.lastError || null;
  }

  private async sync(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const served = new Map(this.registry.groupVersions().map((gv) => [`${gv.version}.${gv.group}`, gv]));
      for (const [name, gv] of served) {
        if (this.index.get(name)) continue;
        const key = `${gv.group}/${gv.version}`;
        const builtIn = this.builtIn.has(key);
        const [groupPriorityMinimum, versionPriority] = builtIn ? (PRIORITIES[key] ?? DEFAULT_PRIORITY) : CRD_PRIORITY;
        await this.write(() =>
          this.apiServices.create(
            systemContext({ namespace: '' }, SERVER_OWN_WRITE),
            {
              apiVersion: `${APIREGISTRATION_GROUP}/v1`,
              kind: 'APIService',
              metadata: { name, labels: { [AUTOMANAGED_LABEL]: builtIn ? 'onstart' : 'true' } },
              spec: { group: gv.group, version: gv.version, groupPriorityMinimum, versionPriority },
            } as KubeObject,
            { dryRun: false },
          ),
        );
      }
      for (const view of this.index.all()) {
        if (view.service || served.has(view.name) || view.automanaged !== 'true') continue;
        await this.write(() => this.apiServices.delete(systemContext({ namespace: '', name: view.name }, SERVER_OWN_WRITE), view.name, { dryRun: false }));
      }
      this.lastError = '';
    } catch (err) {
      this.lastError = `syncing local APIServices: ${(err as Error).message}`;
      this.log('autoregister: syncing local APIServices failed', err);
    } finally {
      this.busy = false;
    }
  }

  /** A write another replica or the informer's lag made moot (409, 404) is not an error. */
  private async write(fn: () => Promise<unknown>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      if (!(isStatusError(err) && (err.code === 409 || err.code === 404))) throw err;
    }
  }
}
