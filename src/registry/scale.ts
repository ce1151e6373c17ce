import { badRequest, conflict, invalid } from '../api/errors';
import { field, type FieldErrorList } from '../api/field-errors';
import { labelSelectorString, type LabelSelectorStruct } from '../api/label-selector';
import { validateObjectMeta } from '../api/meta-validation';
import { nameIsDnsSubdomain } from '../api/name-validation';
import { apiVersionOf, isPlainObject, type KubeObject, type ObjectMeta } from '../api/types';
import { getPath, setPath } from './object-path';
import { apiVersionOfDefinition, type ResourceDefinition, type ServedKind } from './resource-definition';
import type { SubresourceView } from './types';
import { AGE_COLUMN, NAME_COLUMN } from './table';
import type { ScaleFacts } from './types';
import { jsonClone } from '../api/json-clone';

export type { ScaleFacts } from './types';

/**
 * The scale subresource (autoscaling/v1 Scale) of kinds with replicas, as kube-apiserver's
 * ScaleREST serves it: a Scale made from the object, and a write of a Scale changing only the
 * object's desired replicas (honouring its resourceVersion and uid as preconditions).
 */

/** Replicas are int32 in Go: absent reads as 0. */
function replicasAt(obj: KubeObject, path: string[]): number {
  const v = getPath(obj, path);
  return typeof v === 'number' ? v : 0;
}

/** autoscaling/v1 Scale, with the columns kube-apiserver's printer gives it (`kubectl get --subresource=scale`). */
export const SCALE_KIND: ServedKind = {
  group: 'autoscaling',
  version: 'v1',
  kind: 'Scale',
  printerColumns: [
    { name: 'Name', type: 'string', description: NAME_COLUMN.description, cell: (o) => o.metadata.name ?? '' },
    {
      name: 'Desired',
      type: 'integer',
      description: 'replicas is the desired number of instances for the scaled object.',
      cell: (o) => replicasAt(o, ['spec', 'replicas']),
    },
    {
      name: 'Available',
      type: 'integer',
      description: 'replicas is the actual number of observed instances of the scaled object.',
      cell: (o) => replicasAt(o, ['status', 'replicas']),
    },
    AGE_COLUMN,
  ],
};

export function scaleFacts(def: ResourceDefinition): ScaleFacts {
  if (!def.scale) throw new Error(`${def.resource} has no scale facts (ResourceDefinition.scale)`);
  return def.scale;
}

/** scaleFrom<Kind>: name, namespace, uid, resourceVersion and creationTimestamp of the object, its replicas and selector. */
function scaleOf(obj: KubeObject, facts: ScaleFacts): KubeObject {
  const { name, namespace, uid, resourceVersion, creationTimestamp } = obj.metadata;
  const metadata: ObjectMeta = { name, namespace, uid, resourceVersion, creationTimestamp };
  for (const k of Object.keys(metadata) as (keyof ObjectMeta)[]) if (metadata[k] === undefined) delete metadata[k];
  const found = facts.labelSelectorPath.length > 0 ? getPath(obj, facts.labelSelectorPath) : undefined;
  const selector = facts.selectorIsLabelSet && isPlainObject(found) ? { matchLabels: found } : found;
  const selectorString = typeof selector === 'string' ? selector : labelSelectorString(isPlainObject(selector) ? (selector as LabelSelectorStruct) : undefined);
  const desired = replicasAt(obj, facts.specReplicasPath);
  return {
    kind: SCALE_KIND.kind,
    apiVersion: apiVersionOf(SCALE_KIND),
    metadata,
    // ScaleSpec.replicas and ScaleStatus.selector are omitempty in Go; ScaleStatus.replicas is not.
    spec: desired === 0 ? {} : { replicas: desired },
    status: { replicas: replicasAt(obj, facts.statusReplicasPath), ...(selectorString ? { selector: selectorString } : {}) },
  };
}

/** ValidateScale. */
function validateScale(scale: KubeObject, namespaced: boolean): FieldErrorList {
  const errs = validateObjectMeta(scale.metadata, { namespaced, validateName: nameIsDnsSubdomain, kubeFinalizerNames: true });
  const replicas = replicasAt(scale, ['spec', 'replicas']);
  if (replicas < 0) errs.push(field.invalid('spec.replicas', replicas, 'must be greater than or equal to 0'));
  return errs;
}

export function scaleView(def: ResourceDefinition): SubresourceView {
  const facts = scaleFacts(def);
  return {
    kind: SCALE_KIND,
    read: (stored) => scaleOf(stored, facts),
    write: (requested, stored) => {
      const name = stored.metadata.name ?? '';
      const meta = requested.metadata;
      if (def.namespaced) {
        meta.namespace ||= stored.metadata.namespace;
        if (meta.namespace !== stored.metadata.namespace) {
          throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
        }
      }
      const errs = validateScale(requested, def.namespaced);
      if (errs.length > 0) throw invalid(SCALE_KIND, name, errs);
      if (meta.uid && meta.uid !== stored.metadata.uid) {
        throw conflict(
          { group: def.group, resource: `${def.resource}/scale` },
          name,
          `Precondition failed: UID in precondition: ${meta.uid}, UID in object meta: ${stored.metadata.uid ?? ''}`,
        );
      }
      const next = jsonClone(stored);
      setPath(next, facts.specReplicasPath, replicasAt(requested, ['spec', 'replicas']));
      // The Scale's resourceVersion becomes the object's: a stale one is a conflict, none an unconditional write.
      next.metadata.resourceVersion = meta.resourceVersion;
      return next;
    },
    configuration: (config) => {
      const parent: KubeObject = { apiVersion: apiVersionOfDefinition(def), kind: def.kind, metadata: { name: config.metadata.name } };
      if (def.namespaced) parent.metadata.namespace = config.metadata.namespace;
      setPath(parent, facts.specReplicasPath, getPath(config, ['spec', 'replicas']));
      return parent;
    },
  };
}
