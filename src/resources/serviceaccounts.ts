import type { ServiceAccount } from '../generated/types/core/v1';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { serviceAccountToken } from './serviceaccount-token';

export const serviceaccounts = defineResource<ServiceAccount>({
  group: '',
  version: 'v1',
  resource: 'serviceaccounts',
  kind: 'ServiceAccount',
  namespaced: true,
  shortNames: ['sa'],
  createSubresources: [serviceAccountToken],
  returnDeletedObject: true,
  strategy: strategy<ServiceAccount>({
    // Secret references keep only the name, as cleanSecretReferences does.
    canonicalize: (sa) => {
      if (Array.isArray(sa.secrets))
        sa.secrets = sa.secrets.filter((s) => typeof s === 'object' && s !== null && !Array.isArray(s)).map((s) => ({ name: s.name }));
    },
  }),
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'Secrets',
      type: 'string',
      description: 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.',
      cell: (sa) => (Array.isArray(sa.secrets) ? sa.secrets.length : 0),
    },
    AGE_COLUMN,
  ],
});
