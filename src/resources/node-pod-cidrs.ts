import { field, type FieldErrorList } from '../api/field-errors';
import { isPlainObject, type KubeObject } from '../api/types';
import { legacyCidrErrors, parseCidrSloppy } from './network-validation';

/** A node's spec.podCIDRs as ValidateNode and ValidateNodeUpdate check them. */

const PATH = 'spec.podCIDRs';

/**
 * The list the internal NodeSpec holds (Convert_v1_NodeSpec_To_core_NodeSpec): podCIDR alone when
 * podCIDRs is empty or starts elsewhere, for older clients' sake.
 */
function internalPodCidrs(node: KubeObject): string[] {
  const spec = isPlainObject(node.spec) ? node.spec : {};
  const listed = Array.isArray(spec.podCIDRs) ? spec.podCIDRs.map((c) => (typeof c === 'string' ? c : '')) : [];
  const one = typeof spec.podCIDR === 'string' ? spec.podCIDR : '';
  return one !== '' && listed[0] !== one ? [one] : listed;
}

/** netutils.IsDualStackCIDRStrings: ParseCIDRs' error for the first CIDR that does not parse, else whether both families are there. */
function dualStack(cidrs: string[]): { dualStack: boolean; error?: string } {
  const families = cidrs.map((c) => {
    const parsed = parseCidrSloppy(c);
    // IPFamilyOfCIDR asks the masked network's To4(): an IPv4-mapped network is IPv4.
    return parsed && (parsed.cidr.bits === 32 || parsed.cidr.network >> 32n === 0xffffn) ? 4 : parsed ? 6 : 0;
  });
  const bad = families.indexOf(0);
  if (bad >= 0) return { dualStack: false, error: `invalid CIDR[${bad}]: <nil> (invalid CIDR address: ${cidrs[bad]})` };
  return { dualStack: families.includes(4) && families.includes(6) };
}

/**
 * ValidateNode's podCIDRs: each IsValidCIDRForLegacyField, the old node's CIDRs spared (KEP-4858's
 * validOldCIDRs); then, for more than one, one per family and no duplicates.
 */
export function podCidrErrors(node: KubeObject, prev?: KubeObject): FieldErrorList {
  const cidrs = internalPodCidrs(node);
  const old = prev ? internalPodCidrs(prev) : [];
  const errs = cidrs.flatMap((c, i) => legacyCidrErrors(`${PATH}[${i}]`, c, old));
  if (cidrs.length < 2) return errs;
  const check = dualStack(cidrs);
  if (check.error) errs.push(field.internal(PATH, `invalid PodCIDRs. failed to check with dual stack with error:${check.error}`));
  if (!check.dualStack || cidrs.length > 2) errs.push(field.invalid(PATH, cidrs, 'may specify no more than one CIDR for each IP family'));
  const seen = new Set<string>();
  cidrs.forEach((c, i) => {
    if (seen.has(c)) errs.push(field.duplicate(`${PATH}[${i}]`, c));
    seen.add(c);
  });
  return errs;
}

/** ValidateNodeUpdate: once a node has pod CIDRs they stay as they are (the node IPAM controller sets them once). */
export function podCidrsUnchanged(node: KubeObject, prev: KubeObject): FieldErrorList {
  const now = internalPodCidrs(node);
  const before = internalPodCidrs(prev);
  if (before.length === 0) return [];
  const forbidden = field.forbidden(PATH, 'node updates may not change podCIDR except from "" to valid');
  if (now.length !== before.length) return [forbidden];
  return before.flatMap((c, i) => (c === now[i] ? [] : [forbidden]));
}
