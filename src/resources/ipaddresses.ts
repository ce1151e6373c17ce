import { field, type FieldErrorList } from '../api/field-errors';
import type { IPAddress } from '../generated/types/networking/v1';
import { isDns1123Subdomain, nameIsPathSegment, type NameValidator } from '../api/name-validation';
import { jsonEqual } from '../api/deep-equal';
import { isPlainObject, type KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { NAME_COLUMN } from '../registry/table';
import { canonicalIp } from '../registry/service-allocation/ip-range';
import { legacyIpErrors, parseIpSloppy } from './network-validation';

/** networking.k8s.io/v1 IPAddress: one allocated IP, named by the address, pointing at what holds it. */

type Obj = Record<string, unknown>;

const parentRefOf = (obj: KubeObject): unknown => (isPlainObject(obj.spec) ? obj.spec.parentRef : undefined);

/** ValidateIPAddressName: the name is an IP address in canonical form. */
export const ipAddressName: NameValidator = (name) => {
  const strict = legacyIpErrors('', name).map((e) => e.detail ?? '');
  if (strict.length > 0) return strict;
  const canonical = canonicalIp(parseIpSloppy(name)!.normalized)!;
  return canonical === name ? [] : [`must be in canonical form (${JSON.stringify(canonical)})`];
};

/** validateIPAddressParentReference: required, with a resource and a name; group and namespace checked when set. */
function validateIpAddress(obj: IPAddress): FieldErrorList {
  const ref = parentRefOf(obj);
  if (!isPlainObject(ref)) return [field.required('spec.parentRef', '')];
  const errs: FieldErrorList = [];
  const path = 'spec.parentRef';
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  const group = str(ref.group);
  if (group) for (const msg of isDns1123Subdomain(group)) errs.push(field.invalid(`${path}.group`, group, msg));
  for (const key of ['resource', 'name']) {
    const value = str(ref[key]);
    if (!value) errs.push(field.required(`${path}.${key}`, ''));
    else for (const msg of nameIsPathSegment(value, false)) errs.push(field.invalid(`${path}.${key}`, value, msg));
  }
  const namespace = str(ref.namespace);
  if (namespace) for (const msg of nameIsPathSegment(namespace, false)) errs.push(field.invalid(`${path}.namespace`, namespace, msg));
  return errs;
}

/** The *ParentReference ValidateImmutableField reports, as JSON shows it (kube 1.34+). */
function parentRefValue(ref: unknown): Obj | null {
  if (!isPlainObject(ref)) return null;
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  return { Group: str(ref.group), Resource: str(ref.resource), Namespace: str(ref.namespace), Name: str(ref.name) };
}

function validateIpAddressUpdate(next: IPAddress, prev: IPAddress): FieldErrorList {
  return jsonEqual(parentRefOf(next), parentRefOf(prev)) ? [] : [field.invalid('spec.parentRef', parentRefValue(parentRefOf(next)), 'field is immutable')];
}

/** printIPAddress: resource.group/namespace/name, lower case. */
function parentRefCell(obj: IPAddress): string {
  const ref = parentRefOf(obj);
  if (!isPlainObject(ref)) return '<none>';
  const r = ref as Obj;
  const gr = `${String(r.resource ?? '')}${r.group ? `.${String(r.group)}` : ''}`.toLowerCase();
  return `${gr}${r.namespace ? `/${String(r.namespace)}` : ''}/${String(r.name ?? '')}`;
}

export const ipaddresses = defineResource<IPAddress>({
  group: 'networking.k8s.io',
  version: 'v1',
  resource: 'ipaddresses',
  kind: 'IPAddress',
  namespaced: false,
  shortNames: ['ip'],
  strategy: strategy<IPAddress>({
    validateName: ipAddressName,
    validate: validateIpAddress,
    validateUpdate: validateIpAddressUpdate,
  }),
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'ParentRef',
      type: 'string',
      description: 'ParentRef references the resource that an IPAddress is attached to. An IPAddress must reference a parent object.',
      cell: parentRefCell,
    },
  ],
});
