import { field, type FieldErrorList } from '../api/field-errors';
import { objectsIn, stringOf } from '../api/json-read';
import { ipWarnings, legacyIpErrors, parseIpSloppy } from './network-validation';

/** A pod's status IPs as kube's validatePodIPs and validateHostIPs check them (status updates). */

type Obj = Record<string, unknown>;

/**
 * The list the internal PodStatus holds (Convert_v1_PodStatus_To_core_PodStatus): the single
 * field alone when the list is empty or starts elsewhere, for older clients' sake.
 */
function internalIps(status: Obj, single: 'podIP' | 'hostIP', list: 'podIPs' | 'hostIPs'): string[] {
  const listed = objectsIn(status[list]).map((entry) => stringOf(entry.ip));
  const one = stringOf(status[single]);
  return one !== '' && listed[0] !== one ? [one] : listed;
}

/** The internal PodIP / HostIP structs, as a field error's value shows them. */
const asStructs = (ips: string[]): { IP: string }[] => ips.map((IP) => ({ IP }));

/** netutils.IsDualStackIPStrings: one IPv4 and one IPv6 at least; an error when one does not parse. */
function dualStackErrors(path: string, ips: string[], message: string): FieldErrorList {
  const families = ips.map((ip) => {
    const parsed = parseIpSloppy(ip);
    return parsed && (parsed.mapped || !parsed.normalized.includes(':')) ? 4 : parsed ? 6 : 0;
  });
  const bad = families.indexOf(0);
  const errs: FieldErrorList = bad >= 0 ? [field.internal(path, `failed to check for dual stack with error:ip at index ${bad} is invalid`)] : [];
  const dualStack = bad < 0 && families.includes(4) && families.includes(6);
  if (!dualStack || ips.length > 2) errs.push(field.invalid(path, asStructs(ips), message));
  return errs;
}

function duplicateErrors(path: string, ips: string[]): FieldErrorList {
  const seen = new Set<string>();
  return ips.flatMap((ip, i) => {
    const dup = seen.has(ip);
    seen.add(ip);
    return dup ? [field.duplicate(`${path}[${i}]`, { IP: ip })] : [];
  });
}

const ONE_PER_FAMILY = 'may specify no more than one IP for each IP family';

/** validatePodIPs: each IP valid (IsValidIPForLegacyField, the old pod's IPs spared), one per family, no duplicates. */
export function podIpErrors(status: Obj, old: Obj): FieldErrorList {
  const path = 'status.podIPs';
  const ips = internalIps(status, 'podIP', 'podIPs');
  const oldIps = internalIps(old, 'podIP', 'podIPs');
  const errs = ips.flatMap((ip, i) => legacyIpErrors(`${path}[${i}]`, ip, oldIps));
  if (ips.length > 1) errs.push(...dualStackErrors(path, ips, ONE_PER_FAMILY), ...duplicateErrors(path, ips));
  return errs;
}

/** validateHostIPs: the first is hostIP; each valid (the old pod's spared); no duplicates; one per family. */
export function hostIpErrors(status: Obj, old: Obj): FieldErrorList {
  const path = 'status.hostIPs';
  const ips = internalIps(status, 'hostIP', 'hostIPs');
  if (ips.length === 0) return [];
  const errs: FieldErrorList = [];
  if (stringOf(status.hostIP) !== ips[0]) errs.push(field.invalid(`${path}[0].ip`, ips[0], 'must be equal to `hostIP`'));
  const oldIps = internalIps(old, 'hostIP', 'hostIPs');
  ips.forEach((ip, i) => errs.push(...legacyIpErrors(`${path}[${i}]`, ip, oldIps)));
  if (ips.length > 1) errs.push(...duplicateErrors(path, ips), ...dualStackErrors(path, ips, ONE_PER_FAMILY));
  return errs;
}

/** podStatusStrategy's WarningsOnUpdate: GetWarningsForIP on each pod and host IP. */
export function podStatusIpWarnings(status: Obj): string[] {
  return (['podIPs', 'hostIPs'] as const).flatMap((list) =>
    internalIps(status, list === 'podIPs' ? 'podIP' : 'hostIP', list).flatMap((ip, i) => ipWarnings(`status.${list}[${i}].ip`, ip)),
  );
}
