import { forbidden, type StatusError } from '../api/errors';
import type { AdmissionAttributes } from './admission';

/** admission.NewForbidden: the request's resource, named by the request, else the object's name or generateName, else "Unknown". */
export function admissionForbidden(attrs: AdmissionAttributes, cause: string): StatusError {
  const meta = attrs.object?.metadata;
  return forbidden({ group: attrs.def.group, resource: attrs.def.resource }, attrs.name || meta?.name || meta?.generateName || 'Unknown', cause);
}
