import type { Service } from '../generated/types/core/v1';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';
import { admissionForbidden } from './admission-forbidden';

/** isSubset: the new Service adds no external IP the old one did not have. */
function addsNoExternalIp(service: Service, old: Service | undefined): boolean {
  const ips = service.spec?.externalIPs ?? [];
  if (ips.length === 0) return true;
  if (!old) return false;
  const had = new Set(old.spec?.externalIPs ?? []);
  return ips.every((ip) => had.has(ip));
}

/**
 * DenyServiceExternalIPs (plugin/pkg/admission/denyserviceexternalips): no Service may gain an
 * external IP; the ones it has may stay or go.
 */
export class DenyServiceExternalIPs implements AdmissionPlugin {
  readonly name = 'DenyServiceExternalIPs';

  validate(attrs: AdmissionAttributes): void {
    if (attrs.def.group !== '' || attrs.def.resource !== 'services' || attrs.subresource !== '' || !attrs.object) return;
    if (attrs.operation !== 'CREATE' && attrs.operation !== 'UPDATE') return;
    if (addsNoExternalIp(attrs.object as Service, attrs.oldObject as Service | undefined)) return;
    throw admissionForbidden(attrs, 'Use of external IPs is denied by admission control');
  }
}
