import { jsonEqual } from '../api/deep-equal';
import type { PodTemplate } from '../generated/types/core/v1';
import { field, type FieldErrorList } from '../api/field-errors';
import { objectOf } from '../api/json-read';
import { validateAnnotations, validateLabels } from '../api/meta-validation';
import type { KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { NAME_COLUMN } from '../registry/table';
import { defaultPodSpec, validatePodSpec } from './pod-spec';
import { formatLabels } from './replicationcontrollers';

/** core/v1 PodTemplate: stored, defaulted and validated as kube-apiserver does. */

const template = (obj: KubeObject): Record<string, unknown> => objectOf(obj.template);
const containers = (obj: KubeObject): Record<string, unknown>[] => {
  const list = objectOf(template(obj).spec).containers;
  return Array.isArray(list) ? list.map(objectOf) : [];
};

/** ValidatePodTemplate: ValidatePodTemplateSpec of `template`. */
function validatePodTemplate(obj: PodTemplate): FieldErrorList {
  if (obj.template === undefined || obj.template === null) return [field.required('template')];
  const meta = objectOf(template(obj).metadata);
  return [
    ...validateLabels(meta.labels as Record<string, string> | undefined, 'template.metadata.labels'),
    ...validateAnnotations(meta.annotations as Record<string, string> | undefined, 'template.metadata.annotations'),
    ...validatePodSpec(template(obj).spec, 'template.spec'),
  ];
}

export const podtemplates = defineResource<PodTemplate>({
  group: '',
  version: 'v1',
  resource: 'podtemplates',
  kind: 'PodTemplate',
  namespaced: true,
  strategy: strategy<PodTemplate>({
    // podTemplateStrategy: generation 1, bumped by any change to the template.
    prepareForCreate: (obj) => {
      obj.metadata.generation = 1;
    },
    prepareForUpdate: (next, prev) => {
      if (!jsonEqual(next.template, prev.template)) next.metadata.generation = (prev.metadata.generation ?? 0) + 1;
    },
    applyDefaults: (obj) => defaultPodSpec(template(obj).spec),
    validate: validatePodTemplate,
  }),
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'Containers',
      type: 'string',
      description: 'Names of each container in the template.',
      cell: (o) =>
        containers(o)
          .map((c) => String(c.name ?? ''))
          .join(','),
    },
    {
      name: 'Images',
      type: 'string',
      description: 'Images referenced by each container in the template.',
      cell: (o) =>
        containers(o)
          .map((c) => String(c.image ?? ''))
          .join(','),
    },
    { name: 'Pod Labels', type: 'string', description: 'The labels for the pod template.', cell: (o) => formatLabels(objectOf(template(o).metadata).labels) },
  ],
});
