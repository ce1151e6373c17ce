import { badRequest, invalid } from '../api/errors';
import { field } from '../api/field-errors';
import { apiVersionOf, parseApiVersion, type GroupVersionKind, type KubeObject } from '../api/types';
import { GROUP_VERSION_PACKAGES } from '../generated/api-facts';
import { lookupMessageOf } from '../schema/proto-loader';
import { unexpectedGroupVersion, withDefaultGroupVersion } from './body-group-version';

/** How a patch's result is turned back into an object of the endpoint's kind. */
export type PatchedKindRule = 'strategic' | 'typed' | 'custom';

/**
 * The scheme a built-in group's bodies are decoded with, named as runtime.NewScheme names it
 * (naming.GetNameFromCallsite: the file and line that made it, past its last `/pkg/`).
 */
const SCHEMES: Record<string, string> = {
  'apiextensions.k8s.io': 'pkg/apiserver/apiserver.go:56',
  'apiregistration.k8s.io': 'pkg/apiserver/scheme/scheme.go:32',
};
const LEGACY_SCHEME = 'pkg/api/legacyscheme/scheme.go:30';
const CRD_KINDS = new Set(['CustomResourceDefinition', 'CustomResourceDefinitionList']);
/** metav1.AddToGroupVersion: kinds every group-version of a scheme has, and the unversioned ones Scheme.New makes under any version; all of package metav1 ("v1"). */
const OPTIONS_KINDS = new Set(['WatchEvent', 'ListOptions', 'GetOptions', 'DeleteOptions', 'CreateOptions', 'UpdateOptions', 'PatchOptions']);
const UNVERSIONED_KINDS = new Set(['Status', 'APIVersions', 'APIGroupList', 'APIGroup', 'APIResourceList']);
const APIEXTENSIONS_VERSIONS = new Set(['v1', 'v1beta1']);

/** Whether the served kind's scheme has a Go type for apiVersion and kind (Scheme.New would make one). */
function registered(apiVersion: string, kind: string, scheme: string): boolean {
  if (UNVERSIONED_KINDS.has(kind)) return true;
  const { group, version } = parseApiVersion(apiVersion);
  if ((SCHEMES[group] ?? LEGACY_SCHEME) !== scheme) return false;
  if (group === 'apiextensions.k8s.io') return APIEXTENSIONS_VERSIONS.has(version) && (CRD_KINDS.has(kind) || OPTIONS_KINDS.has(kind));
  if (OPTIONS_KINDS.has(kind)) return GROUP_VERSION_PACKAGES[apiVersion] !== undefined;
  return lookupMessageOf(apiVersion, kind)?.fields.metadata !== undefined;
}

/** Scheme.New's NotRegisteredErr when the scheme that decodes a built-in served kind cannot make apiVersion's kind. */
export function unregisteredKind(apiVersion: string, kind: string, served: GroupVersionKind): string | undefined {
  const scheme = SCHEMES[served.group] ?? LEGACY_SCHEME;
  return registered(apiVersion, kind, scheme) ? undefined : `no kind "${kind}" is registered for version "${apiVersion}" in scheme "${scheme}"`;
}

/** converter.Convert's answer for a registered kind the served kind's type has no conversion from. */
export function unknownConversion(apiVersion: string, kind: string, served: GroupVersionKind): string {
  const internal = served.group === '' ? 'core' : served.group.split('.')[0];
  const pkg = OPTIONS_KINDS.has(kind) || UNVERSIONED_KINDS.has(kind) ? 'v1' : parseApiVersion(apiVersion).version;
  return `converting (${pkg}.${kind}) to (${internal}.${served.kind}): unknown conversion`;
}

/**
 * The apiVersion runtime.DecodeInto reads in a patched built-in object: json.Serializer.Decode's
 * gvkWithDefaults fills its gaps from the internal type it decodes into, so that a name of the served
 * group without a version ("/", "apps/" on apps) decodes as if absent (''), and one of another group
 * is Decode's missing-version error.
 */
function typedApiVersion(apiVersion: string, served: GroupVersionKind, patchedJson: () => string): string {
  const gv = withDefaultGroupVersion(apiVersion, { group: served.group, version: '' });
  if (gv.version !== '') return apiVersionOf(gv);
  if (gv.group === served.group) return '';
  const json = patchedJson();
  throw invalid({ group: '', kind: '' }, '', [field.invalid('patch', json, `Object 'apiVersion' is missing in '${json}'`)]);
}

/**
 * A patch's result that names another apiVersion or kind than the endpoint's, as kube reads it.
 *
 * - strategic: smpPatcher.applyPatchToCurrentObject converts the patched map into the endpoint's
 *   Go type (FromUnstructured) and that to the hub version by its Go type, so the names are lost.
 * - typed (JSON and merge patches of built-in kinds): jsonPatcher.applyPatchToCurrentObject decodes
 *   the patched JSON into the endpoint's type (runtime.DecodeInto): a missing kind is the endpoint's
 *   (json.Serializer.Decode's gvkWithDefaults); a kind Scheme.New cannot make, or one that does not
 *   convert to the endpoint's (converter.Convert's "unknown conversion"), fails the decode, a 422
 *   against the patched JSON (`patchedJson`, of the document as the patch left it).
 * - custom: the object keeps what it says, and customResourceValidator.ValidateTypeMeta refuses it
 *   with a 422 of the kind the object names.
 */
export function settlePatchedKind(
  value: Record<string, unknown>,
  current: KubeObject,
  served: GroupVersionKind,
  rule: PatchedKindRule,
  patchedJson: () => string,
): void {
  if (rule === 'strategic') {
    value.apiVersion = current.apiVersion;
    value.kind = current.kind;
    return;
  }
  const expected = apiVersionOf(served);
  const named = value.apiVersion;
  const unexpected = typeof named === 'string' ? unexpectedGroupVersion(named) : undefined;
  // SimpleMetaFactory.Interpret fails runtime.DecodeInto for built-in kinds and custom resources alike
  if (unexpected) throw invalid({ group: '', kind: '' }, '', [field.invalid('patch', patchedJson(), unexpected)]);
  const apiVersion = rule === 'typed' && typeof named === 'string' ? typedApiVersion(named, served, patchedJson) : named;
  const kind = rule === 'typed' && (value.kind === undefined || value.kind === '') ? served.kind : value.kind;
  if (apiVersion === expected && kind === served.kind) {
    value.apiVersion = apiVersion;
    value.kind = kind;
    return;
  }
  if (typeof apiVersion !== 'string' || apiVersion === '' || typeof kind !== 'string') {
    throw badRequest(
      `the API version or kind in the patched object (${String(named)}, ${String(kind)}) does not match the expected (${expected}, ${served.kind})`,
    );
  }
  if (rule === 'custom') {
    const errs = [];
    if (kind !== served.kind) errs.push(field.invalid('kind', kind, `must be ${served.kind}`));
    if (apiVersion !== expected) errs.push(field.invalid('apiVersion', apiVersion, `must be ${expected}`));
    throw invalid({ group: parseApiVersion(apiVersion).group, kind }, current.metadata.name ?? '', errs);
  }
  const unregistered = unregisteredKind(apiVersion, kind, served);
  if (unregistered === undefined && kind === served.kind) {
    // Another version of the same kind: kube decodes it in that version and converts it; kapi does not.
    throw badRequest(`the API version in the patched object (${apiVersion}) does not match the expected API version (${expected})`);
  }
  const cause = unregistered ?? unknownConversion(apiVersion, kind, served);
  throw invalid({ group: '', kind: '' }, '', [field.invalid('patch', patchedJson(), cause)]);
}
