import { badRequest, conflict, invalid } from '../api/errors';
import { field, type FieldErrorList } from '../api/field-errors';
import { isPlainObject, type KubeObject, type Status } from '../api/types';
import { nowTimestamp } from '../registry/generic-store';
import type { ServedKind } from '../registry/resource-definition';
import type { CreateSubresource } from '../registry/subresources';
import type { RequestContext } from '../registry/request-context';
import type { ObjectStore } from '../registry/types';

/** core/v1 Binding: what a scheduler posts to put a pod on a node. */
export const BINDING_KIND: ServedKind = { group: '', version: 'v1', kind: 'Binding', printerColumns: [] };

const BINDING_GROUP_RESOURCE = { group: '', resource: 'pods/binding' };

/** ValidatePodBinding. */
export function validatePodBinding(binding: KubeObject): FieldErrorList {
  const target = isPlainObject(binding.target) ? binding.target : {};
  const kind = typeof target.kind === 'string' ? target.kind : '';
  const errs: FieldErrorList = [];
  if (kind !== '' && kind !== 'Node') errs.push(field.notSupported('target.kind', kind, ['Node', '<empty>']));
  if (typeof target.name !== 'string' || target.name === '') errs.push(field.required('target.name'));
  return errs;
}

/** podutil.UpdatePodCondition with PodScheduled True: a new transition time only when the status changes. */
function markScheduled(pod: KubeObject): void {
  const status = isPlainObject(pod.status) ? pod.status : (pod.status = {});
  const conditions = Array.isArray(status.conditions) ? status.conditions.filter(isPlainObject) : [];
  const old = conditions.find((c) => c.type === 'PodScheduled');
  const condition = {
    type: 'PodScheduled',
    status: 'True',
    lastProbeTime: null,
    lastTransitionTime: old?.status === 'True' ? old.lastTransitionTime : nowTimestamp(),
  };
  status.conditions = old ? conditions.map((c) => (c === old ? condition : c)) : [...conditions, condition];
}

/**
 * BindingREST.Create over the pod store: the binding's target node becomes the pod's nodeName and
 * its annotations the pod's, straight to storage as kube's setPodNodeAndMetadata does. What stops
 * the assignment is a 409 on pods/binding; a missing pod is a 404.
 */
export async function bindPod(ctx: RequestContext, pods: ObjectStore, name: string, binding: KubeObject, dryRun: boolean): Promise<Status> {
  if (binding.metadata.name !== name) throw badRequest('name in URL does not match name in Binding object');
  const errs = validatePodBinding(binding);
  // kube-apiserver returns these as a plain error (a 500 with the messages); they are a 422 here.
  if (errs.length > 0) throw invalid({ group: '', kind: 'Binding' }, name, errs);
  const node = (binding.target as { name: string }).name;
  const { uid, resourceVersion, annotations } = binding.metadata;
  const refuse = (message: string) => conflict(BINDING_GROUP_RESOURCE, name, message);
  await pods.updateDirectly(
    ctx,
    name,
    (pod) => {
      const spec = isPlainObject(pod.spec) ? pod.spec : (pod.spec = {});
      if (pod.metadata.deletionTimestamp) throw refuse(`pod ${name} is being deleted, cannot be assigned to a host`);
      if (uid && uid !== pod.metadata.uid) {
        throw conflict(
          { group: '', resource: 'pods' },
          name,
          `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${pod.metadata.uid ?? ''}`,
        );
      }
      if (resourceVersion && resourceVersion !== pod.metadata.resourceVersion) {
        throw conflict(
          { group: '', resource: 'pods' },
          name,
          `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${pod.metadata.resourceVersion ?? ''}`,
        );
      }
      if (spec.nodeName) throw refuse(`pod ${name} is already assigned to node ${JSON.stringify(spec.nodeName)}`);
      if (Array.isArray(spec.schedulingGates) && spec.schedulingGates.length > 0) throw refuse(`pod ${name} has non-empty .spec.schedulingGates`);
      spec.nodeName = node;
      pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), ...(annotations ?? {}) };
      markScheduled(pod);
    },
    { dryRun },
  );
  // kube's create handler gives a Success Status without a code the create's 201.
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
}

export const podBinding: CreateSubresource = {
  name: 'binding',
  kind: BINDING_KIND,
  create: ({ ctx, parent, name, object, dryRun }) => bindPod(ctx, parent, name, object, dryRun),
};
