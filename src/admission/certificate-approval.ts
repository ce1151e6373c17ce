import { forbidden } from '../api/errors';
import { objectOf, stringOf } from '../api/json-read';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';
import { authorizedForSigner, CSR_GROUP, CSRS } from './certificate-signer-authorization';

/**
 * CertificateApproval (plugin/pkg/admission/certificates/approval): approving or denying through
 * certificatesigningrequests/approval needs the `approve` verb on the request's signer, read
 * from the new object so that a changed signer is the one checked.
 */
export class CertificateApproval implements AdmissionPlugin {
  readonly name = 'CertificateApproval';

  validate(attrs: AdmissionAttributes): void {
    if (attrs.operation !== 'UPDATE' || attrs.subresource !== 'approval' || attrs.def.group !== CSR_GROUP || attrs.def.resource !== CSRS.resource) return;
    const signer = stringOf(objectOf(attrs.object?.spec).signerName);
    if (!authorizedForSigner(attrs.request, 'approve', signer)) {
      throw forbidden(CSRS, attrs.name, `user not permitted to approve requests with signerName "${signer}"`);
    }
  }
}
