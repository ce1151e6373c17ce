import { field, type FieldErrorList } from '../api/field-errors';
import type { ServiceCIDR } from '../generated/types/networking/v1';
import { isPlainObject, type KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { cidrBitsSloppy, strictCidrErrors } from './network-validation';

/** networking.k8s.io/v1 ServiceCIDR: a range service cluster IPs are allocated from. */

const cidrsOf = (obj: KubeObject): unknown[] => (isPlainObject(obj.spec) && Array.isArray(obj.spec.cidrs) ? obj.spec.cidrs : []);

/** IsValidCIDR: strictly parsed and written canonically (the network address, no leading zeros). */
export function cidrErrors(value: string, path: string): FieldErrorList {
  return strictCidrErrors(path, value);
}

const FAMILY_MESSAGE = 'may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64';

/** validateServiceCIDRSpec; the values shown are the spec's and its list's, as JSON (kube 1.34+). */
function validateServiceCidrSpec(cidrs: string[]): FieldErrorList {
  if (cidrs.length === 0) return [field.required('spec.cidrs', 'at least one CIDR required')];
  if (cidrs.length > 2) return [field.invalid('spec.cidrs', { CIDRs: cidrs }, 'may only hold up to 2 values')];
  const errs = cidrs.flatMap((c, i) => cidrErrors(c, `spec.cidrs[${i}]`));
  if (cidrs.length === 2 && cidrBitsSloppy(cidrs[0]) !== undefined && cidrBitsSloppy(cidrs[0]) === cidrBitsSloppy(cidrs[1])) {
    errs.push(field.invalid('spec.cidrs', cidrs, FAMILY_MESSAGE));
  }
  return errs;
}

/** ValidateServiceCIDRUpdate: the CIDRs stay, but a single-stack ServiceCIDR may gain its second family. */
function validateServiceCidrUpdate(next: ServiceCIDR, prev: ServiceCIDR): FieldErrorList {
  const cidrs = cidrsOf(next).map(String);
  const old = cidrsOf(prev).map(String);
  const immutable = 'field is immutable';
  if (old.length === cidrs.length) return old.flatMap((c, i) => (c !== cidrs[i] ? [field.invalid(`spec.cidrs[${i}]`, cidrs[i], immutable)] : []));
  if (old.length === 1 && cidrs.length === 2) {
    return [...(cidrs[0] !== old[0] ? [field.invalid('spec.cidrs[0]', cidrs[0], immutable)] : []), ...validateServiceCidrSpec(cidrs)];
  }
  return [field.invalid('spec.cidrs', cidrs.length === 0 ? null : cidrs, immutable)];
}

export const servicecidrs = defineResource<ServiceCIDR>({
  group: 'networking.k8s.io',
  version: 'v1',
  resource: 'servicecidrs',
  kind: 'ServiceCIDR',
  namespaced: false,
  subresources: ['status'],
  strategy: strategy<ServiceCIDR>({
    prepareForCreate: (obj) => {
      obj.status = {};
    },
    validate: (obj) => validateServiceCidrSpec(cidrsOf(obj).map(String)),
    validateUpdate: validateServiceCidrUpdate,
  }),
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'CIDRs',
      type: 'string',
      description:
        'CIDRs defines the IP blocks in CIDR notation (e.g. "192.168.0.0/24" or "2001:db8::/64") from which to assign service cluster IPs. Max of two CIDRs is allowed, one of each IP family. This field is immutable.',
      cell: (obj) => cidrsOf(obj).map(String).join(','),
    },
    AGE_COLUMN,
  ],
});
