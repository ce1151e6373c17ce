import { loopSlices } from '../../api/loop-slices';
import type { KubeObject } from '../../api/types';
import type { RestStore } from '../../registry/resource-registry';
import { readBody } from '../body';
import { decodeObject } from '../decode-object';
import { enforceFieldValidation } from '../field-validation';
import { writeOptions } from '../query';
import { isCustomResource, type ResourceRequest } from './context';

export interface WriteBody {
  object: KubeObject;
  dryRun: boolean;
  fieldManager: string;
}

/**
 * What every write of a whole body shares: its options, and the body decoded as the endpoint's
 * kind and checked per fieldValidation. Admission runs inside the store's write, once it knows
 * whether the write creates or updates.
 */
export async function writeBody(r: ResourceRequest<RestStore>, optionsKind: 'CreateOptions' | 'UpdateOptions'): Promise<WriteBody> {
  const { query } = r;
  const body = await readBody(r.req);
  const { dryRun, validation, fieldManager } = writeOptions(query, r.req.headers['user-agent'], optionsKind);
  const { object, fieldErrors } = await decodeObject(
    body,
    r.req.headers['content-type'],
    r.served.kind,
    r.inputEncodings,
    r.served.schema,
    !isCustomResource(r),
    validation,
    loopSlices(),
    r.bodyDecoder,
  );
  enforceFieldValidation(r.res, validation, fieldErrors);
  return { object, dryRun, fieldManager };
}
