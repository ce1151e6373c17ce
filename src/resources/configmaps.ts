import { field, type FieldErrorList } from '../api/field-errors';
import type { ConfigMap } from '../generated/types/core/v1';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { keyErrors, mapOf, MAX_CONFIG_BYTES, validateImmutable, validateKeys } from './config-data';

function validateConfigMap(cm: ConfigMap): FieldErrorList {
  const data = mapOf(cm.data);
  const binary = mapOf(cm.binaryData);
  // ValidateConfigMap: each data key's own errors, then whether binaryData has it too.
  const errs: FieldErrorList = [];
  for (const key of Object.keys(data)) {
    errs.push(...keyErrors('data', key));
    if (Object.hasOwn(binary, key)) errs.push(field.invalid(`data[${key}]`, key, 'duplicate of key present in binaryData'));
  }
  errs.push(...validateKeys(binary, 'binaryData'));
  let size = 0;
  for (const v of Object.values(data)) size += typeof v === 'string' ? Buffer.byteLength(v) : 0;
  for (const v of Object.values(binary)) size += typeof v === 'string' ? Buffer.from(v, 'base64').length : 0;
  if (size > MAX_CONFIG_BYTES) errs.push(field.tooLong('', MAX_CONFIG_BYTES));
  return errs;
}

export const configmaps = defineResource<ConfigMap>({
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
  shortNames: ['cm'],
  strategy: strategy<ConfigMap>({
    validate: validateConfigMap,
    validateUpdate: (next, prev) => validateImmutable(next, prev, ['data', 'binaryData']),
  }),
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'Data',
      type: 'string',
      description: "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'.",
      cell: (cm) => Object.keys(mapOf(cm.data)).length + Object.keys(mapOf(cm.binaryData)).length,
    },
    AGE_COLUMN,
  ],
});
