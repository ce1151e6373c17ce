import { jsonEqual } from '../api/deep-equal';
import { forbidden } from '../api/errors';
import { objectOf, stringOf } from '../api/json-read';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';
import { authorizedForSigner, CSR_GROUP, CSRS } from './certificate-signer-authorization';

/**
 * CertificateSigning (plugin/pkg/admission/certificates/signing): a /status update that changes
 * status.certificate or status.conditions needs the `sign` verb on the stored request's signer.
 */
export class CertificateSigning implements AdmissionPlugin {
  readonly name = 'CertificateSigning';

  validate(attrs: AdmissionAttributes): void {
    if (attrs.operation !== 'UPDATE' || attrs.subresource !== 'status' || attrs.def.group !== CSR_GROUP || attrs.def.resource !== CSRS.resource) return;
    const status = objectOf(attrs.object?.status);
    const oldStatus = objectOf(attrs.oldObject?.status);
    const conditions = (s: Record<string, unknown>): unknown => (Array.isArray(s.conditions) && s.conditions.length > 0 ? s.conditions : []);
    if (stringOf(status.certificate) === stringOf(oldStatus.certificate) && jsonEqual(conditions(status), conditions(oldStatus))) return;
    const signer = stringOf(objectOf(attrs.oldObject?.spec).signerName);
    if (!authorizedForSigner(attrs.request, 'sign', signer)) {
      throw forbidden(CSRS, attrs.name, `user not permitted to sign requests with signerName "${signer}"`);
    }
  }
}
