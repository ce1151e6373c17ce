import type { ObjectStore } from '../registry/types';
import { isStatusError } from '../api/errors';
import type { KubeObject } from '../api/types';
import { systemContext, SERVER_OWN_WRITE } from '../registry/request-context';
import type { Predicate } from '../storage/interfaces';
import { QueueController } from './runtime/controller';
import { CachedInformer } from './runtime/informer';
import { systemClock, type Clock } from './runtime/clock';
import { WorkQueue } from './work-queue';
import type { SharedInformers } from './runtime/shared-informers';

type Log = (message: string, err?: unknown) => void;

const RETRY_MS = 1000;

export const ROOT_CA_CONFIG_MAP = 'kube-root-ca.crt';
const CA_KEY = 'ca.crt';
const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
/** The description root-ca-cert-publisher puts on every copy (pkg/controller/certificates/rootcacertpublisher). */
export const ROOT_CA_DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. ' +
  'No other usage is guaranteed across distributions of Kubernetes clusters.';

const onlyRootCa: Predicate = { empty: false, matches: (obj) => obj.metadata.name === ROOT_CA_CONFIG_MAP };

const isTerminating = (ns: KubeObject): boolean =>
  Boolean(ns.metadata.deletionTimestamp) || (ns.status as { phase?: string } | undefined)?.phase === 'Terminating';

/** The ConfigMap holds the CA and the description, whatever else its data or annotations hold. */
function upToDate(cm: KubeObject, ca: string): boolean {
  const data = (cm.data ?? {}) as Record<string, unknown>;
  return Object.keys(data).length === 1 && data[CA_KEY] === ca && cm.metadata.annotations?.[DESCRIPTION_ANNOTATION] === ROOT_CA_DESCRIPTION;
}

/**
 * kube-controller-manager's root-ca-cert-publisher (Publisher.syncNamespace): every active
 * namespace holds the `kube-root-ca.crt` ConfigMap with the cluster CA, put back when deleted or
 * changed.
 */
export class RootCaPublisher extends QueueController {
  readonly name = 'root-ca-certificate-publisher-controller';
  private readonly namespaceInformer: CachedInformer;
  private readonly configMapInformer: CachedInformer;
  protected readonly queue: WorkQueue;

  constructor(
    namespaces: ObjectStore,
    private readonly configMaps: ObjectStore,
    private readonly ca: string,
    informers: SharedInformers,
    private readonly log: Log,
    clock: Clock = systemClock,
  ) {
    super();
    this.queue = new WorkQueue(
      (ns) => this.sync(ns),
      (ns, err) => this.log(`root CA publisher: namespace ${ns} failed`, err),
      RETRY_MS,
      clock,
    );
    const enqueueNamespace = (ns: KubeObject): void => this.queue.add(ns.metadata.name!);
    const enqueueOwner = (cm: KubeObject): void => this.queue.add(cm.metadata.namespace!);
    this.namespaceInformer = informers.informer(namespaces, { added: enqueueNamespace, updated: (_, ns) => enqueueNamespace(ns) }, { name: 'namespaces' });
    this.configMapInformer = informers.informer(
      configMaps,
      { updated: (_, cm) => enqueueOwner(cm), deleted: enqueueOwner },
      { name: 'configmaps', filter: { description: `metadata.name=${ROOT_CA_CONFIG_MAP}`, predicate: onlyRootCa } },
    );
  }

  protected get informers(): CachedInformer[] {
    return [this.configMapInformer, this.namespaceInformer];
  }

  private async sync(namespace: string): Promise<boolean> {
    const ns = this.namespaceInformer.get(namespace);
    if (!ns || isTerminating(ns)) return true;
    const current = this.configMapInformer.get(`${namespace}/${ROOT_CA_CONFIG_MAP}`);
    if (current && upToDate(current, this.ca)) return true;
    const ctx = systemContext({ namespace }, SERVER_OWN_WRITE);
    try {
      if (!current) {
        const cm: KubeObject = {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: ROOT_CA_CONFIG_MAP, namespace, annotations: { [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION } },
          data: { [CA_KEY]: this.ca },
        };
        await this.configMaps.create(ctx, cm, { dryRun: false });
        return true;
      }
      await this.configMaps.update(
        ctx,
        ROOT_CA_CONFIG_MAP,
        (cm) => {
          // The data is replaced whole; other annotations stay (Publisher.syncNamespace).
          cm.data = { [CA_KEY]: this.ca };
          cm.metadata.annotations = { ...cm.metadata.annotations, [DESCRIPTION_ANNOTATION]: ROOT_CA_DESCRIPTION };
          return cm;
        },
        { dryRun: false },
      );
    } catch (err) {
      // Created meanwhile, gone, or the namespace is going away: the informers bring the next change.
      if (isStatusError(err) && (err.code === 409 || err.code === 404 || err.code === 403)) return err.code !== 409;
      throw err;
    }
    return true;
  }
}
