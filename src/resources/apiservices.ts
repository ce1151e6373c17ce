import { field, type FieldErrorList } from '../api/field-errors';
import { objectOf, objectsIn, stringOf } from '../api/json-read';
import { isDns1035Label, isDns1123Subdomain, nameIsPathSegment } from '../api/name-validation';
import { isPlainObject, type KubeObject } from '../api/types';
import { defineResource } from '../registry/resource-definition';
import { strategy } from '../registry/strategy';
import { AGE_COLUMN, NAME_COLUMN } from '../registry/table';
import type { APIService } from '../generated/types/apiregistration/v1';
import { jsonClone } from '../api/json-clone';

/**
 * apiregistration.k8s.io/v1 APIService, as kube-aggregator's registry/apiservice serves it: a
 * group/version served locally (no spec.service) or proxied to a Service (src/aggregator/).
 */

export const APIREGISTRATION_GROUP = 'apiregistration.k8s.io';
const CONDITION_STATUSES = ['True', 'False', 'Unknown'];

export interface ServiceReference {
  namespace: string;
  name: string;
  port: number;
}

/** The parts of an APIService the aggregator reads, absent fields at their Go zero values. */
export interface ApiServiceView {
  name: string;
  group: string;
  version: string;
  /** null: served by kapi itself ("Local"). */
  service: ServiceReference | null;
  caBundle: string;
  insecureSkipTLSVerify: boolean;
  groupPriorityMinimum: number;
  versionPriority: number;
  available: { status: string; reason: string; message: string } | null;
  /** The kube-aggregator.kubernetes.io/automanaged label: who keeps it ('onstart', 'true'), or '' for a user's. */
  automanaged: string;
}

const num = (v: unknown): number => (typeof v === 'number' ? v : 0);

export function apiServiceView(obj: KubeObject): ApiServiceView {
  const spec = objectOf(obj.spec);
  const service = isPlainObject(spec.service) ? spec.service : null;
  const available = objectsIn(objectOf(obj.status).conditions).find((c) => c.type === 'Available');
  return {
    name: obj.metadata.name ?? '',
    group: stringOf(spec.group),
    version: stringOf(spec.version),
    service: service
      ? { namespace: stringOf(service.namespace), name: stringOf(service.name), port: typeof service.port === 'number' ? service.port : 443 }
      : null,
    caBundle: stringOf(spec.caBundle),
    insecureSkipTLSVerify: spec.insecureSkipTLSVerify === true,
    groupPriorityMinimum: num(spec.groupPriorityMinimum),
    versionPriority: num(spec.versionPriority),
    available: available ? { status: stringOf(available.status), reason: stringOf(available.reason), message: stringOf(available.message) } : null,
    automanaged: obj.metadata.labels?.['kube-aggregator.kubernetes.io/automanaged'] ?? '',
  };
}

/** ValidateAPIService (kube-aggregator's apis/apiregistration/validation). */
function validateApiService(obj: APIService): FieldErrorList {
  const errs: FieldErrorList = [];
  const spec = objectOf(obj.spec);
  const group = stringOf(spec.group);
  const version = stringOf(spec.version);
  const required = `${version}.${group}`;
  const name = obj.metadata.name ?? '';
  if (name && nameIsPathSegment(name, false).length === 0 && name !== required) {
    errs.push(field.invalid('metadata.name', name, `must be \`spec.version+"."+spec.group\`: "${required}"`));
  }
  if (group === '' && version !== 'v1') errs.push(field.required('spec.group', 'only v1 may have an empty group and it better be legacy kube'));
  if (group !== '') for (const msg of isDns1123Subdomain(group)) errs.push(field.invalid('spec.group', group, msg));
  for (const msg of isDns1035Label(version)) errs.push(field.invalid('spec.version', version, msg));
  const groupPriority = num(spec.groupPriorityMinimum);
  if (groupPriority <= 0 || groupPriority > 20000) errs.push(field.invalid('spec.groupPriorityMinimum', groupPriority, 'must be positive and less than 20000'));
  const versionPriority = num(spec.versionPriority);
  if (versionPriority <= 0 || versionPriority > 1000) errs.push(field.invalid('spec.versionPriority', versionPriority, 'must be positive and less than 1000'));
  const caBundle = stringOf(spec.caBundle);
  const caBytes = Buffer.from(caBundle, 'base64').length;
  const insecure = spec.insecureSkipTLSVerify === true;
  if (!isPlainObject(spec.service)) {
    if (caBytes > 0) errs.push(field.invalid('spec.caBundle', `${caBytes} bytes`, 'local APIServices may not have a caBundle'));
    if (insecure) errs.push(field.invalid('spec.insecureSkipTLSVerify', true, 'local APIServices may not have insecureSkipTLSVerify'));
    return errs;
  }
  const service = spec.service;
  if (!stringOf(service.namespace)) errs.push(field.required('spec.service.namespace'));
  if (!stringOf(service.name)) errs.push(field.required('spec.service.name'));
  const port = num(service.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    errs.push(field.invalid('spec.service.port', port, 'port is not valid: must be between 1 and 65535, inclusive'));
  if (insecure && caBytes > 0) errs.push(field.invalid('spec.insecureSkipTLSVerify', true, 'may not be true if caBundle is present'));
  return errs;
}

/** ValidateAPIServiceStatus: every condition's status is True, False or Unknown. */
function validateApiServiceStatus(obj: APIService): FieldErrorList {
  return objectsIn(objectOf(obj.status).conditions).flatMap((c, i) =>
    CONDITION_STATUSES.includes(stringOf(c.status)) ? [] : [field.notSupported(`status.conditions[${i}].status`, c.status ?? '', CONDITION_STATUSES)],
  );
}

/** printers' APIService columns (registry/apiservice/etcd): "Local" or namespace/name; the Available condition with its reason when not True. */
function availableCell(obj: APIService): string {
  const available = apiServiceView(obj).available;
  if (!available) return 'Unknown';
  if (available.status !== 'True' && available.reason) return `${available.status} (${available.reason})`;
  return available.status;
}

export const apiservices = defineResource<APIService>({
  group: APIREGISTRATION_GROUP,
  version: 'v1',
  resource: 'apiservices',
  kind: 'APIService',
  namespaced: false,
  categories: ['api-extensions'],
  subresources: ['status'],
  storagePath: `${APIREGISTRATION_GROUP}/apiservices`,
  strategy: strategy<APIService>({
    allowUnconditionalUpdate: false,
    validateName: nameIsPathSegment,
    // apiServerStrategy.PrepareForCreate / PrepareForUpdate: status is the status subresource's.
    prepareForCreate: (obj) => {
      obj.status = {};
    },
    prepareForUpdate: (next, prev) => {
      next.status = jsonClone(prev.status ?? {});
    },
    // SetDefaults_ServiceReference: port 443.
    applyDefaults: (obj) => {
      const spec = objectOf(obj.spec);
      if (isPlainObject(spec.service) && spec.service.port === undefined) spec.service.port = 443;
    },
    validate: validateApiService,
    validateStatusUpdate: validateApiServiceStatus,
  }),
  printerColumns: [
    NAME_COLUMN,
    {
      name: 'Service',
      type: 'string',
      description: 'The reference to the service that hosts this API endpoint.',
      cell: (o) => {
        const service = apiServiceView(o).service;
        return service ? `${service.namespace}/${service.name}` : 'Local';
      },
    },
    { name: 'Available', type: 'string', description: 'Whether this service is available.', cell: availableCell },
    AGE_COLUMN,
  ],
});
