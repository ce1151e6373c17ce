import { field, GoSyntax, type FieldErrorList } from '../api/field-errors';
import type { ServiceCIDR } from '../generated/types/networking/v1';
import { isPlainObject, type KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import { CIDR_MESSAGE, parseCidr } from './network-validation';
import { formatIp, familyOfBits } from '../registry/service-allocation/ip-range';

/** networking.k8s.io/v1 ServiceCIDR: a range service cluster IPs are allocated from. */

const cidrsOf = (obj: KubeObject): unknown[] => (isPlainObject(obj.spec) && Array.isArray(obj.spec.cidrs) ? obj.spec.cidrs : []);

/** The spec as %#v shows it in kube's messages: `networking.ServiceCIDRSpec{CIDRs:[]string{...}}`. */
function specValue(cidrs: unknown[]): string {
  return `networking.ServiceCIDRSpec{CIDRs:[]string{${cidrs.map((c) => JSON.stringify(String(c))).join(', ')}}}`;
}

/** IsValidCIDR: a CIDR, written canonically (the network address, no leading zeros). */
export function cidrErrors(value: string, path: string): FieldErrorList {
  const cidr = parseCidr(value);
  if (!cidr) return [field.invalid(path, value, CIDR_MESSAGE)];
  const canonical = `${formatIp({ family: familyOfBits(cidr.bits), value: cidr.network })}/${cidr.prefix}`;
  return canonical === value ? [] : [field.invalid(path, value, `must be in canonical form (${JSON.stringify(canonical)})`)];
}

/** ValidateServiceCIDR. */
function validateServiceCidr(obj: ServiceCIDR): FieldErrorList {
  const cidrs = cidrsOf(obj);
  if (cidrs.length === 0) return [field.required('spec.cidrs', 'at least one CIDR required')];
  if (cidrs.length > 2) return [field.invalid('spec.cidrs', new GoSyntax(specValue(cidrs)), 'may only hold up to 2 values')];
  if (cidrs.length === 2) {
    const bits = cidrs.map((c) => parseCidr(String(c))?.bits);
    if (bits.includes(undefined) || bits[0] === bits[1]) {
      return [
        field.invalid('spec.cidrs', new GoSyntax(specValue(cidrs)), 'may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64'),
      ];
    }
  }
  return cidrs.flatMap((c, i) => cidrErrors(String(c), `spec.cidrs[${i}]`));
}

function validateServiceCidrUpdate(next: ServiceCIDR, prev: ServiceCIDR): FieldErrorList {
  const cidrs = cidrsOf(next);
  return JSON.stringify(cidrs) === JSON.stringify(cidrsOf(prev))
    ? []
    : [field.invalid('spec.cidrs', GoSyntax.strings(cidrs.map(String)), 'field is immutable')];
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
    validate: validateServiceCidr,
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
