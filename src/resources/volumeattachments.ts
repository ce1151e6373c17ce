import { jsonEqual } from '../api/deep-equal';
import type { VolumeAttachment } from '../generated/types/storage/v1';
import { field, type FieldErrorList } from '../api/field-errors';
import { objectOf, stringOf } from '../api/json-read';
import type { KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { validateCsiDriverName } from './csi-names';

/** storage.k8s.io/v1 VolumeAttachment: stored and validated as kube-apiserver does, with its status; no attacher acts on it. */

const sourceOf = (obj: KubeObject): Record<string, unknown> => objectOf(objectOf(obj.spec).source);

/** ValidateVolumeAttachment's essentials: an attacher, a node, exactly one source. */
function validateVolumeAttachment(obj: VolumeAttachment): FieldErrorList {
  const spec = objectOf(obj.spec);
  const errs = validateCsiDriverName(stringOf(spec.attacher), 'spec.attacher');
  if (!stringOf(spec.nodeName)) errs.push(field.required('spec.nodeName'));
  const source = sourceOf(obj);
  const pv = stringOf(source.persistentVolumeName);
  const inline = source.inlineVolumeSpec !== undefined && source.inlineVolumeSpec !== null;
  const exactlyOne = 'must specify exactly one of inlineVolumeSpec and persistentVolumeName';
  if (!pv && !inline) errs.push(field.required('spec.source', exactlyOne));
  else if (pv && inline) errs.push(field.forbidden('spec.source', exactlyOne));
  return errs;
}

/** ValidateVolumeAttachmentUpdate: the spec is immutable. */
function validateVolumeAttachmentUpdate(next: VolumeAttachment, prev: VolumeAttachment): FieldErrorList {
  return jsonEqual(next.spec, prev.spec) ? [] : [field.invalid('spec', next.spec, 'field is immutable')];
}

export const volumeattachments = defineResource<VolumeAttachment>({
  group: 'storage.k8s.io',
  version: 'v1',
  resource: 'volumeattachments',
  kind: 'VolumeAttachment',
  namespaced: false,
  returnDeletedObject: true,
  subresources: ['status'],
  strategy: strategy<VolumeAttachment>({
    prepareForCreate: (obj) => {
      obj.status = {};
    },
    validate: validateVolumeAttachment,
    validateUpdate: validateVolumeAttachmentUpdate,
  }),
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'Attacher',
      type: 'string',
      format: 'name',
      description: 'attacher indicates the name of the volume driver that MUST handle this request.',
      cell: (o) => stringOf(objectOf(o.spec).attacher),
    },
    {
      name: 'PV',
      type: 'string',
      description: 'persistentVolumeName represents the name of the persistent volume to attach.',
      cell: (o) => stringOf(sourceOf(o).persistentVolumeName),
    },
    {
      name: 'Node',
      type: 'string',
      description: 'nodeName represents the node that the volume should be attached to.',
      cell: (o) => stringOf(objectOf(o.spec).nodeName),
    },
    {
      name: 'Attached',
      type: 'boolean',
      description: 'attached indicates the volume is successfully attached.',
      cell: (o) => objectOf(o.status).attached === true,
    },
    AGE_COLUMN,
  ],
});
