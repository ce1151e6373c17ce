import { field, type FieldErrorList } from '../api/field-errors';
import type { ResourceSlice } from '../generated/types/resource/v1';
import { objectOf, stringOf } from '../api/json-read';
import { isDns1123Subdomain } from '../api/name-validation';
import { isPlainObject, type KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';

/** resource.k8s.io/v1 ResourceSlice: stored and validated as kube-apiserver does; selectable by spec.nodeName and spec.driver. */

type Obj = Record<string, unknown>;

const specOf = (obj: KubeObject): Obj => objectOf(obj.spec);
const poolOf = (obj: KubeObject): Obj => objectOf(specOf(obj).pool);
const NODE_CHOICE = 'exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required';

/** ValidateResourceSlice's essentials: a driver, a pool, exactly one way of naming the nodes. */
function validateResourceSlice(obj: ResourceSlice): FieldErrorList {
  const spec = specOf(obj);
  const errs: FieldErrorList = [];
  const driver = stringOf(spec.driver);
  if (!driver) errs.push(field.required('spec.driver', ''));
  else errs.push(...isDns1123Subdomain(driver).map((m) => field.invalid('spec.driver', driver, m)));
  const pool = poolOf(obj);
  if (!stringOf(pool.name)) errs.push(field.required('spec.pool.name', ''));
  const count = typeof pool.resourceSliceCount === 'number' ? pool.resourceSliceCount : 0;
  if (count <= 0) errs.push(field.invalid('spec.pool.resourceSliceCount', count, 'must be greater than zero'));
  const generation = typeof pool.generation === 'number' ? pool.generation : 0;
  if (generation < 0) errs.push(field.invalid('spec.pool.generation', generation, 'must be greater than or equal to 0'));
  const choices = [Boolean(stringOf(spec.nodeName)), isPlainObject(spec.nodeSelector), spec.allNodes === true, spec.perDeviceNodeSelection === true].filter(
    Boolean,
  ).length;
  if (choices === 0) errs.push(field.required('spec', NODE_CHOICE));
  else if (choices > 1) errs.push(field.invalid('spec', null, `${NODE_CHOICE}, but multiple fields are set`));
  return errs;
}

/** ValidateResourceSliceUpdate: driver, pool name and node name are immutable. */
function validateResourceSliceUpdate(next: ResourceSlice, prev: ResourceSlice): FieldErrorList {
  const errs: FieldErrorList = [];
  const immutable = (path: string, a: unknown, b: unknown) => {
    if ((a ?? '') !== (b ?? '')) errs.push(field.invalid(path, a ?? '', 'field is immutable'));
  };
  immutable('spec.driver', specOf(next).driver, specOf(prev).driver);
  immutable('spec.pool.name', poolOf(next).name, poolOf(prev).name);
  immutable('spec.nodeName', specOf(next).nodeName, specOf(prev).nodeName);
  return errs;
}

export const resourceslices = defineResource<ResourceSlice>({
  group: 'resource.k8s.io',
  version: 'v1',
  resource: 'resourceslices',
  kind: 'ResourceSlice',
  namespaced: false,
  strategy: strategy<ResourceSlice>({ tracksGeneration: true, validate: validateResourceSlice, validateUpdate: validateResourceSliceUpdate }),
  fieldLabelConversion: { namespaceLabel: false },
  selectableFields: {
    'spec.nodeName': (o) => stringOf(specOf(o).nodeName),
    'spec.driver': (o) => stringOf(specOf(o).driver),
  },
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'Node',
      type: 'string',
      description:
        'NodeName identifies the node which provides the resources in this pool. A field selector can be used to list only ResourceSlice objects belonging to a certain node.\n\nThis field can be used to limit access from nodes to ResourceSlices with the same node name. It also indicates to autoscalers that adding new nodes of the same type as some old node might also make new resources available.\n\nExactly one of NodeName, NodeSelector, AllNodes, and PerDeviceNodeSelection must be set. This field is immutable.',
      cell: (o) => stringOf(specOf(o).nodeName),
    },
    {
      name: 'Driver',
      type: 'string',
      description:
        'Driver identifies the DRA driver providing the capacity information. A field selector can be used to list only ResourceSlice objects with a certain driver name.\n\nMust be a DNS subdomain and should end with a DNS domain owned by the vendor of the driver. This field is immutable.',
      cell: (o) => stringOf(specOf(o).driver),
    },
    {
      name: 'Pool',
      type: 'string',
      description:
        'Name is used to identify the pool. For node-local devices, this is often the node name, but this is not required.\n\nIt must not be longer than 253 characters and must consist of one or more DNS sub-domains separated by slashes. This field is immutable.',
      cell: (o) => stringOf(poolOf(o).name),
    },
    AGE_COLUMN,
  ],
});
