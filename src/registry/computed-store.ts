import { nowTimestamp } from './time';
import { badRequest, notFound } from '../api/errors';
import type { KubeList, KubeObject, Status } from '../api/types';
import { kindSchema, type ObjectNode } from '../schema/typed-schema';
import { FieldManager } from './field-manager';
import type { WriteOptions } from './types';
import { inWireOrder } from './object-order';
import { apiVersionOfDefinition, type ResourceDefinition, type ServedKind } from './resource-definition';
import type { ServerServices } from './types';
import type { AdmissionAttributes } from './types';
import { ensureActive, type RequestContext } from './request-context';

const isStatus = (value: KubeObject | Status): value is Status => value.kind === 'Status';

/**
 * The REST storage of a resource that is never stored: with `compute`, create answers with the
 * computed object and stores nothing of its own (what it writes elsewhere, the legacy `bindings`
 * writing pods, goes through the services, which honour dryRun); with `computeItems`, get and
 * list answer with objects computed at each request (componentstatuses).
 */
export class ComputedStore {
  /** Built on first use, as GenericStore's: a start builds every store and uses few. */
  private typed: { schema: ObjectNode | null; fields: FieldManager | null } | null = null;
  private readonly compute: ResourceDefinition['compute'];

  constructor(
    readonly def: ResourceDefinition,
    private readonly services: ServerServices,
  ) {
    if (!def.compute && !def.computeItems) throw new Error(`${def.resource}: a computed resource needs compute`);
    this.compute = def.compute;
  }

  private typedParts(): { schema: ObjectNode | null; fields: FieldManager | null } {
    if (this.typed) return this.typed;
    const { def } = this;
    const schema = kindSchema({ group: def.group, version: def.version, kind: def.kind });
    return (this.typed = { schema, fields: schema ? new FieldManager(def, schema, nowTimestamp) : null });
  }

  served(): { kind: ServedKind; schema: ObjectNode | null } {
    return { kind: this.def, schema: this.typedParts().schema };
  }

  /**
   * As kube-apiserver's create handler: mutating admission, the namespace of the object and the
   * request's reconciled, the field manager records the request's fields (so a review that echoes
   * its request carries managedFields), validating admission, then the resource computes its answer.
   */
  async create(ctx: RequestContext, obj: KubeObject, opts: WriteOptions): Promise<KubeObject | Status> {
    const { namespace } = ctx.info;
    const attrs = (): AdmissionAttributes => ({
      operation: 'CREATE',
      def: this.def,
      namespace,
      name: obj.metadata.name ?? '',
      subresource: '',
      kind: { group: this.def.group, version: this.def.version, kind: this.def.kind },
      object: obj,
      options: {
        kind: 'CreateOptions',
        apiVersion: 'meta.k8s.io/v1',
        ...(opts.dryRun ? { dryRun: ['All'] } : {}),
        ...(opts.fieldManager ? { fieldManager: opts.fieldManager } : {}),
      },
      dryRun: opts.dryRun,
      user: ctx.user,
      request: ctx,
    });
    await ctx.admission.mutate(attrs());
    reconcileNamespace(namespace, obj);
    if (opts.fieldManager !== undefined) await this.typedParts().fields?.update(null, obj, opts.fieldManager, '');
    await ctx.admission.validate(attrs());
    ensureActive(ctx);
    if (!this.compute) throw badRequest(`${this.def.resource} cannot be created`);
    const answer = await this.compute({ ctx, namespace, object: obj, dryRun: opts.dryRun, services: this.services });
    if (isStatus(answer)) return answer;
    // An unset metav1.Time in a Go struct is written as null; these objects never get a creation time.
    answer.metadata.creationTimestamp ??= null;
    return inWireOrder(answer, this.def.kind, apiVersionOfDefinition(this.def));
  }

  async list(): Promise<KubeList> {
    const items = (await this.def.computeItems?.(this.services)) ?? [];
    return {
      apiVersion: apiVersionOfDefinition(this.def),
      kind: this.def.listKind,
      metadata: {},
      items: items.map((o) => inWireOrder(o, this.def.kind, apiVersionOfDefinition(this.def))),
    };
  }

  async get(name: string): Promise<KubeObject> {
    const found = (await this.list()).items.find((o) => o.metadata.name === name);
    if (!found) throw notFound(this.def, name);
    return found;
  }
}

/** rest.EnsureObjectNamespaceMatchesRequestNamespace. */
export function reconcileNamespace(requestNamespace: string, obj: KubeObject): void {
  const own = obj.metadata.namespace ?? '';
  if (own === requestNamespace) return;
  if (own === '') obj.metadata.namespace = requestNamespace;
  else if (requestNamespace === '') delete obj.metadata.namespace;
  else throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
}
