import type { AdmissionOperation } from '../../admission/admission';
import type { KubeObject } from '../../api/types';
import type { RestStore } from '../../registry/resource-registry';
import { readBody } from '../body';
import { decodeObject } from '../decode-object';
import { enforceFieldValidation } from '../field-validation';
import { dryRunParam, fieldManagerParam, fieldValidationParam } from '../query';
import type { ResourceRequest } from './context';

export interface AdmittedBody {
  object: KubeObject;
  dryRun: boolean;
  fieldManager: string;
}

/**
 * What every write of a whole body shares: its options, the body decoded as the endpoint's kind
 * and checked per fieldValidation, then admission of the object under `name` (a create names it
 * in the body, the others in the path).
 */
export async function admittedBody(
  r: ResourceRequest<RestStore>,
  optionsKind: 'CreateOptions' | 'UpdateOptions',
  operation: AdmissionOperation,
  subresource: string,
  nameOf: (object: KubeObject) => string,
): Promise<AdmittedBody> {
  const { info, store, query } = r;
  const body = await readBody(r.req);
  const dryRun = dryRunParam(query, optionsKind);
  const validation = fieldValidationParam(query, optionsKind);
  const fieldManager = fieldManagerParam(query, r.req.headers['user-agent'], optionsKind, false);
  const { object, fieldErrors } = decodeObject(body, r.req.headers['content-type'], r.served.kind, r.inputEncodings, r.served.schema, validation);
  enforceFieldValidation(r.res, validation, fieldErrors);
  await r.admission.admit({ operation, def: store.def, namespace: info.namespace, name: nameOf(object), subresource, object, dryRun });
  return { object, dryRun, fieldManager };
}
