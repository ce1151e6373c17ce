import { field, type FieldErrorList } from '../api/field-errors';
import type { CSINode } from '../generated/types/storage/v1';
import { objectOf, objectsIn, stringOf } from '../api/json-read';
import type { KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { validateCsiDriverName } from './csi-names';

/** storage.k8s.io/v1 CSINode: what a kubelet reports of the CSI drivers on its node, stored and validated as kube-apiserver does. */

const MAX_NODE_ID = 256;

const driversOf = (obj: KubeObject): Record<string, unknown>[] => objectsIn(objectOf(obj.spec).drivers);

/** ValidateCSINode's essentials: each driver named once, with a node ID. */
function validateCsiNode(obj: CSINode): FieldErrorList {
  const errs: FieldErrorList = [];
  const names = new Set<string>();
  driversOf(obj).forEach((d, i) => {
    const path = `spec.drivers[${i}]`;
    const name = stringOf(d.name);
    errs.push(...validateCsiDriverName(name, `${path}.name`));
    if (names.has(name)) errs.push(field.duplicate(`${path}.name`, name));
    names.add(name);
    const nodeID = stringOf(d.nodeID);
    if (!nodeID) errs.push(field.required(`${path}.nodeID`, 'nodeID of the driver must be provided'));
    else if (nodeID.length > MAX_NODE_ID) errs.push(field.tooLong(`${path}.nodeID`, MAX_NODE_ID));
    const count = objectOf(d.allocatable).count;
    if (typeof count === 'number' && count < 0) errs.push(field.invalid(`${path}.allocatable.count`, count, 'must be greater than or equal to 0'));
  });
  return errs;
}

export const csinodes = defineResource<CSINode>({
  group: 'storage.k8s.io',
  version: 'v1',
  resource: 'csinodes',
  kind: 'CSINode',
  namespaced: false,
  returnDeletedObject: true,
  strategy: strategy<CSINode>({ validate: validateCsiNode }),
  printerColumns: [
    NAME_COLUMN,
    { name: 'Drivers', type: 'integer', description: 'Drivers indicates the number of CSI drivers registered on the node', cell: (o) => driversOf(o).length },
    AGE_COLUMN,
  ],
});
