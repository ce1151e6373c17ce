import { forbidden } from '../api/errors';
import { objectOf, stringOf } from '../api/json-read';
import { requestOf } from '../resources/certificatesigningrequests';
import type { AdmissionAttributes, AdmissionPlugin } from './admission';
import { CSR_GROUP, CSRS } from './certificate-signer-authorization';

const KUBE_APISERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';
const MASTERS_GROUP = 'system:masters';

/**
 * CertificateSubjectRestriction (plugin/pkg/admission/certificates/subjectrestriction): a request
 * to the kube-apiserver-client signer may not ask for the system:masters group (an organization
 * of its subject).
 */
export class CertificateSubjectRestriction implements AdmissionPlugin {
  readonly name = 'CertificateSubjectRestriction';

  validate(attrs: AdmissionAttributes): void {
    if (attrs.operation !== 'CREATE' || attrs.subresource !== '' || attrs.def.group !== CSR_GROUP || attrs.def.resource !== CSRS.resource || !attrs.object)
      return;
    const signer = stringOf(objectOf(attrs.object.spec).signerName);
    if (signer !== KUBE_APISERVER_CLIENT_SIGNER) return;
    // The strategy's validation has already refused a request that does not parse.
    if (requestOf(attrs.object).names.organizations.includes(MASTERS_GROUP)) {
      throw forbidden(CSRS, attrs.object.metadata.name ?? '', `use of ${signer} signer with ${MASTERS_GROUP} group is not allowed`);
    }
  }
}
