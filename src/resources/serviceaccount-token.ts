import { badRequest, conflict, invalid, isStatusError } from '../api/errors';
import { field, type FieldErrorList } from '../api/field-errors';
import { isPlainObject, type KubeObject } from '../api/types';
import type { ObjectRef, TokenSubject } from '../auth/service-account-tokens';
import { nowTimestamp, timestampAt } from '../registry/generic-store';
import { inWireOrder } from '../registry/object-order';
import type { ServedKind } from '../registry/resource-definition';
import type { ServerServices } from '../registry/types';
import type { CreateSubresource, CreateSubresourceRequest } from '../registry/subresources';
import type { ObjectStore, RequestContext } from '../registry/types';

/** authentication.k8s.io/v1 TokenRequest: what serviceaccounts/token reads and answers. */
export const TOKEN_REQUEST_KIND: ServedKind = { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest', printerColumns: [] };

const TOKEN_REQUEST_GROUP_KIND = { group: 'authentication.k8s.io', kind: 'TokenRequest' };

/** SetDefaults_TokenRequestSpec. */
export const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 10 * 60;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

/** ValidateTokenRequest. */
export function validateTokenRequest(expirationSeconds: number): FieldErrorList {
  const errs: FieldErrorList = [];
  if (expirationSeconds < MIN_EXPIRATION_SECONDS) {
    errs.push(field.invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration less than 10 minutes'));
  }
  if (expirationSeconds > MAX_EXPIRATION_SECONDS) {
    errs.push(field.invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration larger than 2^32 seconds'));
  }
  return errs;
}

const refOf = (obj: KubeObject): ObjectRef => ({ name: obj.metadata.name ?? '', uid: obj.metadata.uid ?? '' });
/** The request's read of an object in its namespace (a node is cluster-scoped): bound by its deadline. */
const read = (ctx: RequestContext, store: ObjectStore, name: string): Promise<KubeObject> =>
  store.get(ctx, name, { resourceVersion: '', match: '', signal: ctx.signal });

/** What a token bound to `ref` also names (pod, and its node; secret; node), as TokenREST looks the objects up. */
async function boundObjects(
  ref: Record<string, unknown>,
  saName: string,
  ctx: RequestContext,
  services: ServerServices,
): Promise<Omit<TokenSubject, 'namespace' | 'serviceaccount'>> {
  const apiVersion = typeof ref.apiVersion === 'string' ? ref.apiVersion : '';
  const kind = typeof ref.kind === 'string' ? ref.kind : '';
  const name = typeof ref.name === 'string' ? ref.name : '';
  const slash = apiVersion.indexOf('/');
  const group = slash >= 0 ? apiVersion.slice(0, slash) : '';
  const version = slash >= 0 ? apiVersion.slice(slash + 1) : apiVersion;
  let bound: Omit<TokenSubject, 'namespace' | 'serviceaccount'>;
  let uid: string;
  if (group === '' && kind === 'Pod') {
    const pod = await read(ctx, services.store('', 'pods'), name);
    const spec = isPlainObject(pod.spec) ? pod.spec : {};
    if (spec.serviceAccountName !== saName) {
      throw badRequest(`cannot bind token for serviceaccount ${JSON.stringify(saName)} to pod running with different serviceaccount name.`);
    }
    bound = { pod: refOf(pod) };
    if (typeof spec.nodeName === 'string' && spec.nodeName !== '') {
      try {
        bound.node = refOf(await read(ctx, services.store('', 'nodes'), spec.nodeName));
      } catch (err) {
        if (!(isStatusError(err) && err.code === 404)) throw err;
      }
    }
    uid = bound.pod!.uid;
  } else if (group === '' && kind === 'Secret') {
    bound = { secret: refOf(await read(ctx, services.store('', 'secrets'), name)) };
    uid = bound.secret!.uid;
  } else if (group === '' && kind === 'Node') {
    bound = { node: refOf(await read(ctx, services.store('', 'nodes'), name)) };
    uid = bound.node!.uid;
  } else {
    throw badRequest(`cannot bind token to object of type ${group}/${version}, Kind=${kind}`);
  }
  if (typeof ref.uid === 'string' && ref.uid !== '' && ref.uid !== uid) {
    throw conflict(
      { group, resource: kind },
      name,
      `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
    );
  }
  return bound;
}

/** TokenREST.Create: a token for the service account, valid for the audiences and time asked for. */
async function requestToken({ ctx, parent, namespace, name, object, services }: CreateSubresourceRequest): Promise<KubeObject> {
  const meta = object.metadata;
  if (meta.name && meta.name !== name) {
    throw invalid(TOKEN_REQUEST_GROUP_KIND, name, [field.invalid('metadata.name', meta.name, 'must match the service account name if specified')]);
  }
  const sa = await read(ctx, parent, name);
  const spec = isPlainObject(object.spec) ? object.spec : {};
  const asked = Array.isArray(spec.audiences) ? spec.audiences.filter((a): a is string => typeof a === 'string') : [];
  const audiences = asked.length > 0 ? asked : services.tokens.apiAudiences;
  const expirationSeconds = typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : DEFAULT_EXPIRATION_SECONDS;
  const errs = validateTokenRequest(expirationSeconds);
  if (errs.length > 0) throw invalid(TOKEN_REQUEST_GROUP_KIND, '', errs);
  const boundRef = isPlainObject(spec.boundObjectRef) ? spec.boundObjectRef : null;
  const bound = boundRef ? await boundObjects(boundRef, name, ctx, services) : {};
  // The time is taken before the token is built, so the expiration reported is never after the token's exp.
  const now = Math.floor(Date.now() / 1000);
  const token = services.tokens.issue({
    subject: { namespace, serviceaccount: refOf(sa), ...bound },
    audiences,
    expirationSeconds,
    now,
  });
  const answer: KubeObject = {
    ...object,
    metadata: { ...meta, name: sa.metadata.name, namespace, creationTimestamp: nowTimestamp() },
    spec: { ...spec, audiences, expirationSeconds },
    status: { token, expirationTimestamp: timestampAt(now + expirationSeconds) },
  };
  return inWireOrder(answer, TOKEN_REQUEST_KIND.kind, 'authentication.k8s.io/v1');
}

export const serviceAccountToken: CreateSubresource = {
  name: 'token',
  kind: TOKEN_REQUEST_KIND,
  create: requestToken,
};
