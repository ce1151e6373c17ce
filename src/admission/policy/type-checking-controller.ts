import { isStatusError } from '../../api/errors';
import { jsonEqual } from '../../api/deep-equal';
import { objectOf } from '../../api/json-read';
import type { KubeObject } from '../../api/types';
import { QueueController } from '../../controllers/runtime/controller';
import { systemClock, type Clock } from '../../controllers/runtime/clock';
import { CachedInformer } from '../../controllers/runtime/informer';
import { WorkQueue } from '../../controllers/work-queue';
import type { GenericStore } from '../../registry/generic-store';
import { systemContext, SERVER_OWN_WRITE } from '../../registry/request-context';
import type { ResourceRegistry } from '../../registry/resource-registry';
import { kindSchema } from '../../schema/typed-schema';
import { typeCheck, type SchemaOf } from './type-checking';
import type { SharedInformers } from '../../controllers/runtime/shared-informers';

type Log = (message: string, err?: unknown) => void;

const RETRY_MS = 1000;

const checked = (policy: KubeObject): boolean => objectOf(policy.status).observedGeneration === policy.metadata.generation;

/** Schemas of the built-in kinds the registry serves (custom resources have none here). */
export function registrySchemaOf(registry: ResourceRegistry): SchemaOf {
  return (group, version, resource) => {
    const def = registry.lookup(group, version, resource)?.def;
    if (!def) return null;
    const gvk = { group: def.group, version: def.version, kind: def.kind };
    const schema = kindSchema(gvk);
    return schema ? { gvk, schema } : null;
  };
}

/**
 * kube-controller-manager's validatingadmissionpolicy-status controller: every policy whose
 * status has not seen its generation gets status.typeChecking and status.observedGeneration.
 */
export class PolicyTypeCheckingController extends QueueController {
  readonly name = 'validatingadmissionpolicy-status-controller';
  private readonly informer: CachedInformer;
  protected readonly queue: WorkQueue;

  constructor(
    private readonly policies: GenericStore,
    private readonly schemaOf: SchemaOf,
    informers: SharedInformers,
    private readonly log: Log,
    clock: Clock = systemClock,
  ) {
    super();
    this.queue = new WorkQueue(
      async (name) => {
        const policy = this.informer.get(name);
        if (policy && !checked(policy)) await this.check(name);
        return true;
      },
      (name, err) => this.log(`validatingadmissionpolicy status: ${name} failed`, err),
      RETRY_MS,
      clock,
    );
    const enqueue = (policy: KubeObject): void => {
      if (!checked(policy)) this.queue.add(policy.metadata.name!);
    };
    this.informer = informers.informer(policies, { added: enqueue, updated: (_prev, policy) => enqueue(policy) }, { name: 'validatingadmissionpolicies' });
  }

  private async check(name: string): Promise<void> {
    const ctx = systemContext(
      {
        namespace: '',
        group: 'admissionregistration.k8s.io',
        version: 'v1',
        resource: 'validatingadmissionpolicies',
        subresource: 'status',
        name,
        verb: 'update',
      },
      SERVER_OWN_WRITE,
    );
    try {
      await this.policies.update(
        ctx,
        name,
        (current) => {
          if (checked(current)) return current;
          const warnings = typeCheck(current, this.schemaOf);
          const status = {
            ...objectOf(current.status),
            observedGeneration: current.metadata.generation,
            typeChecking: warnings.length ? { expressionWarnings: warnings } : {},
          };
          if (!jsonEqual(status, current.status)) current.status = status;
          return current;
        },
        { dryRun: false },
      );
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return;
      throw err;
    }
  }

  protected get informers(): CachedInformer[] {
    return [this.informer];
  }
}
