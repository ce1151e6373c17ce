import type { ResourceDefinition } from '../registry/resource-definition';
import type { MinorDelta } from '../generated/emulation-facts';
import { kindExistsAt } from './emulated-version';
import { ConfigError, type FeatureGateName, type FeatureGates } from './feature-gates';

/**
 * --runtime-config: which API group versions are served (k8s.io/apiserver's
 * resourceconfig.MergeAPIResourceConfigs over kube-apiserver's DefaultAPIResourceConfigSource).
 * kapi serves what it always has by default; the group versions below are off unless enabled.
 */

/** `key=value` pairs, comma separated; a key without `=` has the value "" (cliflag.ConfigurationMap). */
export type RuntimeConfig = Record<string, string>;

/** Group versions kapi knows but serves only when --runtime-config enables them (beta APIs are off by default since kube 1.24). */
export const DEFAULT_OFF_GROUP_VERSIONS: readonly string[] = ['admissionregistration.k8s.io/v1beta1'];

/** Resources served only while their feature gate is on, on top of their group version being enabled (the REST storage providers' gate checks). */
const GATED_RESOURCES: Record<string, FeatureGateName> = {
  'mutatingadmissionpolicies.admissionregistration.k8s.io': 'MutatingAdmissionPolicy',
  'mutatingadmissionpolicybindings.admissionregistration.k8s.io': 'MutatingAdmissionPolicy',
};

/** The keys that select group versions by stability (groupVersionMatchers), applied in this order before any group/version key. */
const MATCHERS: [string, (version: string) => boolean][] = [
  ['api/all', () => true],
  ['api/ga', (v) => /^v[0-9]+$/.test(v)],
  ['api/beta', (v) => /^v[0-9]+beta[0-9]+$/.test(v)],
  ['api/alpha', (v) => /^v[0-9]+alpha[0-9]+$/.test(v)],
];

export function parseRuntimeConfigFlag(value: string): RuntimeConfig {
  const out: RuntimeConfig = {};
  for (const item of value.split(',')) {
    if (!item) continue;
    const at = item.indexOf('=');
    if (at < 0) out[item.trim()] = '';
    else out[item.slice(0, at).trim()] = item.slice(at + 1).trim();
  }
  return out;
}

/** strconv.ParseBool. */
function parseBool(value: string): boolean | null {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return null;
}

function groupVersionOf(def: ResourceDefinition): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}

/** Every group version kapi has a resource in, served by default or not. */
export function registeredGroupVersions(all: readonly ResourceDefinition[]): string[] {
  return [...new Set(all.map(groupVersionOf))];
}

/**
 * The group versions enabled: every registered one kapi serves by default, changed by the
 * stability matchers and then by `group/version` keys. Errors are kube's: an invalid matcher
 * value, a key that is not a group version, a version its group does not have, a value that is
 * not a boolean. Keys of groups kapi does not have are ignored, as kube ignores them.
 */
export function enabledGroupVersions(config: RuntimeConfig, registered: readonly string[]): Set<string> {
  const enabled = new Set(registered.filter((gv) => !DEFAULT_OFF_GROUP_VERSIONS.includes(gv)));
  const versionOf = (gv: string) => gv.slice(gv.lastIndexOf('/') + 1);
  for (const [key, matches] of MATCHERS) {
    if (!(key in config)) continue;
    const value = config[key];
    if (value !== 'true' && value !== 'false') throw new ConfigError(`invalid value ${key}=${value}`);
    for (const gv of registered) if (matches(versionOf(gv))) value === 'true' ? enabled.add(gv) : enabled.delete(gv);
  }
  const groups = new Set(registered.map((gv) => (gv.includes('/') ? gv.slice(0, gv.lastIndexOf('/')) : '')));
  for (const [key, value] of Object.entries(config)) {
    if (MATCHERS.some(([name]) => name === key)) continue;
    const tokens = key.split('/');
    if (tokens.length < 2 || tokens.length > 3) continue;
    const [group, version] = tokens;
    if (!version) throw new ConfigError(`invalid key ${key}`);
    // A single resource is only switchable in extensions/v1beta1, which kapi does not have.
    if (tokens.length === 3) continue;
    if (!groups.has(group)) continue;
    const gv = group ? `${group}/${version}` : version;
    if (!registered.includes(gv)) throw new ConfigError(`group version ${gv} that has not been registered`);
    const on = value === '' ? true : parseBool(value);
    if (on === null) throw new ConfigError(`invalid value of ${key}: ${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
    if (on) enabled.add(gv);
    else enabled.delete(gv);
  }
  return enabled;
}

/**
 * The resources to serve: those of enabled group versions whose feature gate (if any) is on and
 * whose kind the emulated release has (--emulated-version; the pinned release has every one).
 * Disabling a group version kapi serves by default is accepted but changes nothing: kapi's own
 * controllers and admission plugins rely on those (docs/divergences.md).
 */
export function servedResources(
  all: readonly ResourceDefinition[],
  config: RuntimeConfig,
  gates: FeatureGates,
  emulated: MinorDelta = { absentMessages: [], absentFields: {} },
): ResourceDefinition[] {
  const enabled = enabledGroupVersions(config, registeredGroupVersions(all));
  return all.filter((def) => {
    if (!kindExistsAt(emulated, def.group, def.version, def.kind)) return false;
    const gv = groupVersionOf(def);
    if (DEFAULT_OFF_GROUP_VERSIONS.includes(gv) && !enabled.has(gv)) return false;
    const gate = GATED_RESOURCES[`${def.resource}.${def.group}`];
    return !gate || gates[gate];
  });
}
