import { field, type FieldErrorList } from '../api/field-errors';
import type { Secret } from '../generated/types/core/v1';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { mapOf, MAX_CONFIG_BYTES, validateImmutable, validateKeys } from './config-data';

/** Keys each well-known secret type must carry. */
const REQUIRED_KEYS: Record<string, string[]> = {
  'kubernetes.io/dockercfg': ['.dockercfg'],
  'kubernetes.io/dockerconfigjson': ['.dockerconfigjson'],
  'kubernetes.io/ssh-auth': ['ssh-privatekey'],
  'kubernetes.io/tls': ['tls.crt', 'tls.key'],
};

function validateSecret(secret: Secret): FieldErrorList {
  const data = mapOf(secret.data);
  const errs = validateKeys(data, 'data');
  let size = 0;
  for (const v of Object.values(data)) size += typeof v === 'string' ? Buffer.from(v, 'base64').length : 0;
  if (size > MAX_CONFIG_BYTES) errs.push(field.tooLong('data', MAX_CONFIG_BYTES));
  const type = String(secret.type ?? 'Opaque');
  for (const key of REQUIRED_KEYS[type] ?? []) if (!(key in data)) errs.push(field.required(`data[${key}]`));
  if (type === 'kubernetes.io/basic-auth' && !('username' in data) && !('password' in data)) {
    errs.push(field.required('data[username]', 'either username or password must be set'));
  }
  if (type === 'kubernetes.io/service-account-token' && !secret.metadata.annotations?.['kubernetes.io/service-account.name']) {
    errs.push(field.required('metadata.annotations[kubernetes.io/service-account.name]'));
  }
  return errs;
}

export const secrets = defineResource<Secret>({
  group: '',
  version: 'v1',
  resource: 'secrets',
  kind: 'Secret',
  namespaced: true,
  strategy: strategy<Secret>({
    // stringData is write-only: like kube-apiserver's conversion, it is folded into data before anything checks it.
    applyDefaults: (secret) => {
      secret.type ??= 'Opaque';
      const stringData = mapOf(secret.stringData);
      if (Object.keys(stringData).length > 0) {
        const data: Record<string, string> = {};
        for (const [k, v] of Object.entries(mapOf(secret.data))) if (typeof v === 'string') data[k] = v;
        for (const [k, v] of Object.entries(stringData)) data[k] = Buffer.from(String(v)).toString('base64');
        secret.data = data;
      }
      delete secret.stringData;
    },
    validate: validateSecret,
    validateUpdate: (next, prev) => [
      ...(next.type !== prev.type ? [field.invalid('type', next.type, 'field is immutable')] : []),
      ...validateImmutable(next, prev, ['data']),
    ],
  }),
  fieldLabelConversion: {},
  selectableFields: {
    type: (s) => String(s.type ?? ''),
  },
  printerColumns: [
    NAME_COLUMN,
    { name: 'Type', type: 'string', description: 'Used to facilitate programmatic handling of secret data.', cell: (s) => s.type ?? '' },
    { name: 'Data', type: 'string', description: 'Data contains the secret data.', cell: (s) => Object.keys(mapOf(s.data)).length },
    AGE_COLUMN,
  ],
});
