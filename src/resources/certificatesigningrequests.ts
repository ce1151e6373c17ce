import { field, type FieldErrorList } from '../api/field-errors';
import type { CertificateSigningRequest } from '../generated/types/certificates/v1';
import { objectOf, objectsIn, stringOf, stringsIn } from '../api/json-read';
import type { KubeObject } from '../api/types';
import { certificateRequestDer, parseCertificateRequest } from '../auth/certificate-request';
import type { RequestContext } from '../registry/request-context';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, humanDuration, NAME_COLUMN } from '../registry/table';
import { nowTimestamp } from '../registry/time';
import { jsonClone } from '../api/json-clone';

/** certificates.k8s.io/v1 CertificateSigningRequest, as pkg/registry/certificates/certificates serves it. */

const KNOWN_USAGES = [
  'signing',
  'digital signature',
  'content commitment',
  'key encipherment',
  'key agreement',
  'data encipherment',
  'cert sign',
  'crl sign',
  'encipher only',
  'decipher only',
  'any',
  'server auth',
  'client auth',
  'code signing',
  'email protection',
  's/mime',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'timestamping',
  'ocsp signing',
  'microsoft sgc',
  'netscape sgc',
];
const APPROVAL_TYPES = ['Approved', 'Denied'];
const MIN_EXPIRATION_SECONDS = 600;

const specOf = (o: KubeObject): Record<string, unknown> => objectOf(o.spec);
const statusOf = (o: KubeObject): Record<string, unknown> => objectOf(o.status);
const conditionsOf = (o: KubeObject): Record<string, unknown>[] => objectsIn(statusOf(o).conditions);
const decoded = (b64: unknown): string => Buffer.from(stringOf(b64), 'base64').toString('utf8');

/** The PEM request a CSR carries, decoded: the subject and key the signer certifies. */
export function requestOf(csr: KubeObject): ReturnType<typeof parseCertificateRequest> {
  const der = certificateRequestDer(decoded(specOf(csr).request));
  if (!der) throw new Error('PEM block type must be CERTIFICATE REQUEST');
  return parseCertificateRequest(der);
}

export function hasCondition(csr: KubeObject, type: string): boolean {
  return conditionsOf(csr).some((c) => c.type === type);
}

/** The requesting user (csrStrategy.PrepareForCreate): spec.username, uid, groups and extra are the server's to set. */
function prepareCsrForCreate(csr: CertificateSigningRequest, ctx: RequestContext): void {
  const spec = specOf(csr);
  const { user } = ctx;
  delete spec.username;
  delete spec.uid;
  delete spec.groups;
  delete spec.extra;
  spec.username = user.name;
  if (user.uid) spec.uid = user.uid;
  if (user.groups.length > 0) spec.groups = [...user.groups];
  if (Object.keys(user.extra).length > 0) spec.extra = jsonClone(user.extra);
  csr.spec = spec;
  csr.status = {};
}

/** populateConditionTimestamps: lastUpdateTime when absent, lastTransitionTime on a new or changed status. */
function stampConditions(next: CertificateSigningRequest, prev: CertificateSigningRequest | null): void {
  const now = nowTimestamp();
  for (const c of conditionsOf(next)) {
    c.status ||= 'True';
    c.lastUpdateTime ??= now;
    if (c.lastTransitionTime) continue;
    const old = prev ? conditionsOf(prev).find((o) => o.type === c.type) : undefined;
    c.lastTransitionTime = old && old.status === c.status && old.lastTransitionTime ? old.lastTransitionTime : now;
  }
}

/** validateConditions: known statuses, Approved/Denied/Failed only True, each once, never both Approved and Denied. */
function validateConditions(csr: CertificateSigningRequest): FieldErrorList {
  const errs: FieldErrorList = [];
  const seen = new Set<string>();
  conditionsOf(csr).forEach((c, i) => {
    const path = `status.conditions[${i}]`;
    const type = stringOf(c.type);
    if (!type) errs.push(field.required(`${path}.type`));
    if (!['True', 'False', 'Unknown'].includes(stringOf(c.status))) errs.push(field.notSupported(`${path}.status`, c.status, ['False', 'True', 'Unknown']));
    if (['Approved', 'Denied', 'Failed'].includes(type)) {
      if (seen.has(type)) errs.push(field.duplicate(`${path}.type`, type));
      if (c.status !== 'True') errs.push(field.invalid(`${path}.status`, c.status, `${type} condition may only be set to True`));
    }
    seen.add(type);
  });
  if (seen.has('Approved') && seen.has('Denied'))
    errs.push(field.invalid('status.conditions', 'Approved', 'Approved and Denied conditions are mutually exclusive'));
  return errs;
}

function validateCertificate(csr: CertificateSigningRequest): FieldErrorList {
  const cert = statusOf(csr).certificate;
  if (cert === undefined || cert === null || cert === '') return [];
  if (!/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.test(decoded(cert))) {
    return [field.invalid('status.certificate', '<certificate data>', 'must contain at least one CERTIFICATE PEM block')];
  }
  return [];
}

/** ValidateCertificateSigningRequestCreate's essentials. */
function validateCsr(csr: CertificateSigningRequest): FieldErrorList {
  const spec = specOf(csr);
  const errs: FieldErrorList = [];
  try {
    requestOf(csr);
  } catch (err) {
    errs.push(
      field.invalid(
        'spec.request',
        spec.request ?? '',
        err instanceof Error && err.message.startsWith('PEM') ? err.message : 'asn1: structure error: malformed certificate request',
      ),
    );
  }
  const usages = stringsIn(spec.usages);
  if (usages.length === 0) errs.push(field.required('spec.usages', 'usages must be provided'));
  const seen = new Set<string>();
  usages.forEach((u, i) => {
    if (!KNOWN_USAGES.includes(u)) errs.push(field.notSupported(`spec.usages[${i}]`, u, KNOWN_USAGES));
    else if (seen.has(u)) errs.push(field.duplicate(`spec.usages[${i}]`, u));
    seen.add(u);
  });
  const signer = stringOf(spec.signerName);
  if (!signer) errs.push(field.required('spec.signerName'));
  else if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[^/]+$/.test(signer)) {
    errs.push(field.invalid('spec.signerName', signer, "must be a fully qualified domain and path of the form 'example.com/signer-name'"));
  }
  const expiration = spec.expirationSeconds;
  if (typeof expiration === 'number' && expiration < MIN_EXPIRATION_SECONDS) {
    errs.push(field.invalid('spec.expirationSeconds', expiration, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  errs.push(...validateConditions(csr), ...validateCertificate(csr));
  return errs;
}

/**
 * ValidateCertificateSigningRequestStatusUpdate / ApprovalUpdate: the conditions' rules, and a
 * certificate, once issued, is immutable and issued only for an approved request.
 */
function validateCsrStatusUpdate(next: CertificateSigningRequest, prev: CertificateSigningRequest): FieldErrorList {
  const errs = [...validateConditions(next), ...validateCertificate(next)];
  const cert = stringOf(statusOf(next).certificate);
  const oldCert = stringOf(statusOf(prev).certificate);
  if (oldCert && cert !== oldCert) errs.push(field.forbidden('status.certificate', 'updates may not modify existing certificate content'));
  else if (cert && !oldCert && !hasCondition(next, 'Approved'))
    errs.push(field.forbidden('status.certificate', 'certificate data may only be set for an Approved request'));
  for (const type of APPROVAL_TYPES) {
    if (hasCondition(prev, type) && !hasCondition(next, type))
      errs.push(field.forbidden('status.conditions', `updates may not remove a condition of type "${type}"`));
  }
  return errs;
}

/** csrStatusStrategy.PrepareForUpdate: /status keeps the Approved and Denied conditions as they were (only /approval changes them). */
function keepApprovalConditions(next: CertificateSigningRequest, prev: CertificateSigningRequest): void {
  const kept = conditionsOf(prev).filter((c) => APPROVAL_TYPES.includes(stringOf(c.type)));
  const rest = conditionsOf(next).filter((c) => !APPROVAL_TYPES.includes(stringOf(c.type)));
  const status = statusOf(next);
  status.conditions = [...kept, ...rest];
  if ((status.conditions as unknown[]).length === 0) delete status.conditions;
  next.status = status;
  stampConditions(next, prev);
}

/** kubectl's CONDITION column (printers.go extractCSRStatus): Approved/Denied/Pending, then Failed and Issued. */
function conditionCell(csr: CertificateSigningRequest): string {
  let text = hasCondition(csr, 'Denied') ? 'Denied' : hasCondition(csr, 'Approved') ? 'Approved' : 'Pending';
  if (hasCondition(csr, 'Failed')) text += ',Failed';
  if (stringOf(statusOf(csr).certificate)) text += ',Issued';
  return text;
}

export const certificatesigningrequests = defineResource<CertificateSigningRequest>({
  group: 'certificates.k8s.io',
  version: 'v1',
  resource: 'certificatesigningrequests',
  kind: 'CertificateSigningRequest',
  namespaced: false,
  fieldLabelConversion: { namespaceLabel: false },
  selectableFields: { 'spec.signerName': (csr) => stringOf(specOf(csr).signerName) },
  shortNames: ['csr'],
  subresources: ['approval', 'status'],
  strategy: strategy<CertificateSigningRequest>({
    allowUnconditionalUpdate: true,
    prepareForCreate: prepareCsrForCreate,
    applyDefaults: (csr) => stampConditions(csr, null),
    // csrStrategy.PrepareForUpdate: the main resource changes metadata only.
    prepareForUpdate: (next, prev) => {
      next.spec = jsonClone(prev.spec);
    },
    prepareForStatusUpdate: keepApprovalConditions,
    validate: validateCsr,
    validateStatusUpdate: validateCsrStatusUpdate,
  }),
  printerColumns: [
    NAME_COLUMN,
    AGE_COLUMN,
    {
      name: 'SignerName',
      type: 'string',
      description: 'signerName indicates the requested signer, and is a qualified name.',
      cell: (o) => stringOf(specOf(o).signerName),
    },
    { name: 'Requestor', type: 'string', description: 'Name of the user that requested the certificate.', cell: (o) => stringOf(specOf(o).username) },
    {
      name: 'RequestedDuration',
      type: 'string',
      description: 'expirationSeconds is the requested duration of validity of the issued certificate.',
      cell: (o) => (typeof specOf(o).expirationSeconds === 'number' ? humanDuration((specOf(o).expirationSeconds as number) * 1000) : '<none>'),
    },
    { name: 'Condition', type: 'string', description: 'Condition of the request: Approved, Denied or Pending, then Failed and Issued.', cell: conditionCell },
  ],
});
