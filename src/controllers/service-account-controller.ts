import type { ObjectStore } from '../registry/types';
import { isStatusError } from '../api/errors';
import type { KubeObject } from '../api/types';
import { systemContext, SERVER_OWN_WRITE } from '../registry/request-context';
import { QueueController } from './runtime/controller';
import { CachedInformer } from './runtime/informer';
import { systemClock, type Clock } from './runtime/clock';
import { WorkQueue } from './work-queue';
import type { SharedInformers } from './runtime/shared-informers';

type Log = (message: string, err?: unknown) => void;

const RETRY_MS = 1000;

/** The service account every namespace has (serviceaccount.DefaultServiceAccountName). */
export const DEFAULT_SERVICE_ACCOUNT = 'default';

const isTerminating = (ns: KubeObject): boolean =>
  Boolean(ns.metadata.deletionTimestamp) || (ns.status as { phase?: string } | undefined)?.phase === 'Terminating';

/**
 * kube-controller-manager's serviceaccount-controller (pkg/controller/serviceaccount,
 * ServiceAccountsController): every active namespace gets its `default` ServiceAccount, created
 * again when it is deleted.
 */
export class ServiceAccountController extends QueueController {
  readonly name = 'serviceaccount-controller';
  private readonly namespaceInformer: CachedInformer;
  private readonly accountInformer: CachedInformer;
  protected readonly queue: WorkQueue;

  constructor(
    namespaces: ObjectStore,
    private readonly serviceAccounts: ObjectStore,
    informers: SharedInformers,
    private readonly log: Log,
    clock: Clock = systemClock,
  ) {
    super();
    this.queue = new WorkQueue(
      (ns) => this.sync(ns),
      (ns, err) => this.log(`serviceaccount controller: namespace ${ns} failed`, err),
      RETRY_MS,
      clock,
    );
    const enqueueNamespace = (ns: KubeObject): void => this.queue.add(ns.metadata.name!);
    this.namespaceInformer = informers.informer(namespaces, { added: enqueueNamespace, updated: (_, ns) => enqueueNamespace(ns) }, { name: 'namespaces' });
    this.accountInformer = informers.informer(
      serviceAccounts, // serviceAccountDeleted: only a deletion can leave a namespace without its account.
      { deleted: (sa) => this.queue.add(sa.metadata.namespace!) },
      { name: 'serviceaccounts' },
    );
  }

  protected get informers(): CachedInformer[] {
    return [this.accountInformer, this.namespaceInformer];
  }

  private async sync(namespace: string): Promise<boolean> {
    const ns = this.namespaceInformer.get(namespace);
    if (!ns || isTerminating(ns)) return true;
    if (this.accountInformer.get(`${namespace}/${DEFAULT_SERVICE_ACCOUNT}`)) return true;
    const account: KubeObject = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace } };
    try {
      await this.serviceAccounts.create(systemContext({ namespace }, SERVER_OWN_WRITE), account, { dryRun: false });
    } catch (err) {
      // Already there (the cache lags), or the namespace is going away: nothing to do.
      if (isStatusError(err) && (err.code === 409 || err.code === 403 || err.code === 404)) return true;
      throw err;
    }
    return true;
  }
}
