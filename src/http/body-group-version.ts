import { parseApiVersion, type GroupVersion } from '../api/types';

/** schema.ParseGroupVersion's error, which SimpleMetaFactory.Interpret returns for a body's apiVersion with more than one '/'. */
export function unexpectedGroupVersion(apiVersion: string): string | undefined {
  return apiVersion.indexOf('/') !== apiVersion.lastIndexOf('/') ? `unexpected GroupVersion string: ${apiVersion}` : undefined;
}

/**
 * json.Serializer.Decode's gvkWithDefaults: the group and version a body names (schema.ParseGroupVersion,
 * "/" naming neither), with the endpoint's when it names neither, and the endpoint's version when it
 * names the endpoint's group alone. A version still empty is Decode's missing-version error.
 */
export function withDefaultGroupVersion(apiVersion: string, served: GroupVersion): GroupVersion {
  const named = parseApiVersion(apiVersion);
  if (named.group === '' && named.version === '') return { group: served.group, version: served.version };
  if (named.version === '' && named.group === served.group) return { group: named.group, version: served.version };
  return named;
}
